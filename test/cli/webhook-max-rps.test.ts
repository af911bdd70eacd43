import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI, cleanEnv } from "../support/cli.ts";
import { openDatabase } from "../../src/db/database.ts";
import { testDatabaseUrl } from "../support/harness.ts";

// `chainwatch webhook set --max-rps N`: the webhook's delivery rate limit, with the same rules as
// PUT /v1/address-watch/webhook's "delivery": {"max_rps": N} (docs/cli.md, docs/webhooks.md).
let dir: string;
let config: string;

async function cli(args: string[]) {
  const proc = Bun.spawn([process.execPath, CLI, ...args, "--config", config], { cwd: dir, env: cleanEnv(), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

const URL = "http://127.0.0.1:9000/hook";
const set = (...extra: string[]) => cli(["webhook", "set", "--account", "shop", "--url", URL, "--json", ...extra]);

/** The account's row as stored, read in-process: a refused command leaves every column of it as it was. */
async function storedAccount() {
  const db = openDatabase(testDatabaseUrl(dir));
  try {
    return await db.selectFrom("accounts").selectAll().where("name", "=", "shop").executeTakeFirstOrThrow();
  } finally {
    await db.destroy();
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chainwatch-webhook-max-rps-"));
  config = join(dir, "chainwatch.toml");
  writeFileSync(
    config,
    `[database]\nurl = "${testDatabaseUrl(dir)}"\n[secrets]\nmaster_key_file = "${dir}/master.key"\n[delivery]\nallow_private_targets = true\nmax_rps = 5\n`,
  );
  expect((await cli(["migrate"])).code).toBe(0);
  expect((await cli(["accounts", "create", "shop"])).code).toBe(0);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("chainwatch webhook set --max-rps", () => {
  test("without it, the webhook shows the config's limit", async () => {
    const r = await set("--enabled");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).delivery).toEqual({ max_rps: 5 });
  });

  test("sets the account's own limit, printed as GET /v1/address-watch/webhook shows it; left out later, it stays", async () => {
    const r = await set("--max-rps", "20");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ url: URL, enabled: true, delivery: { max_rps: 20 } });
    expect(JSON.parse((await set()).stdout).delivery).toEqual({ max_rps: 20 });
    expect(JSON.parse((await set("--max-rps", "0")).stdout).delivery).toEqual({ max_rps: 0 });
  });

  test.each([["-1"], ["10001"], ["2.5"], ["fast"], [""]])("refuses --max-rps %p as a usage error, changing nothing", async (value) => {
    const before = await storedAccount();
    const r = await set(`--max-rps=${value}`);
    // An empty value of any flag is refused as such, before the flag's own reading.
    const reason = value === "" ? "must not be empty" : "must be a whole number from 0 to 10000";
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 2, stdout: "", stderr: `chainwatch: --max-rps ${reason} (see --help)\n` });
    expect(await storedAccount()).toEqual(before);
  });
});
