import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI, cleanEnv } from "../support/cli.ts";

// `chainwatch watches add|remove`: lists of any length, through the batch routes' use cases.
let dir: string;
let config: string;

async function cli(args: string[]) {
  const proc = Bun.spawn([process.execPath, CLI, ...args, "--config", config], { cwd: dir, env: cleanEnv(), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

const evm = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chainwatch-watches-"));
  config = join(dir, "cw.toml");
  writeFileSync(config, `[database]\nurl = "sqlite://${dir}/cw.db"\n[secrets]\nmaster_key_file = "${dir}/master.key"\n`);
  expect((await cli(["migrate"])).code).toBe(0);
  expect((await cli(["plans", "set", "big", "--slots", "1500"])).code).toBe(0);
  expect((await cli(["accounts", "create", "shop", "--plan", "big"])).code).toBe(0);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("chainwatch watches", () => {
  test("add watches a list longer than one batch, answering each line in order; a refused line fails the command after the rest are done", async () => {
    const list = ["# cold wallets", ...Array.from({ length: 1200 }, (_, i) => evm(i + 1)), "", "0x1234", evm(1)];
    writeFileSync(join(dir, "list.txt"), list.join("\n"));
    const r = await cli(["watches", "add", "--account", "shop", "--network", "eth", "list.txt", "--json"]);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 1, stderr: "chainwatch: 1 of 1202 refused\n" });
    const results = JSON.parse(r.stdout).results as Record<string, string>[];
    expect(results).toHaveLength(1202);
    expect(results.slice(0, 1200).map((w) => w.address)).toEqual(Array.from({ length: 1200 }, (_, i) => evm(i + 1)));
    expect(results[1200]).toEqual({ error: "Invalid address for network eth" });
    // The address given again, in the second batch, answers its first record.
    expect(results[1201]).toEqual(results[0]);
    const shown = await cli(["accounts", "show", "shop", "--json"]);
    expect(JSON.parse(shown.stdout).address_slots).toEqual({ used: 1200, limit: 1500 });

    writeFileSync(join(dir, "ids.txt"), [results[0].watch_id, results[1].watch_id, "aw_000000000000000000000000"].join("\n"));
    const removed = await cli(["watches", "remove", "--account", "shop", "ids.txt"]);
    expect(removed).toEqual({
      code: 1,
      stdout: `item                         result\n${results[0].watch_id}  deleted\n${results[1].watch_id}  deleted\naw_000000000000000000000000  error: Watch not found.\n`,
      stderr: "chainwatch: 1 of 3 refused\n",
    });
  });

  test("an empty list is refused", async () => {
    writeFileSync(join(dir, "empty.txt"), "# nothing\n\n");
    expect(await cli(["watches", "add", "--account", "shop", "--network", "eth", "empty.txt"])).toEqual({ code: 1, stdout: "", stderr: "chainwatch: empty.txt lists nothing\n" });
  });
});
