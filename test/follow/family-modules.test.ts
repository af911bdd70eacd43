import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { cleanEnv } from "../support/cli.ts";

// A daemon loads the evm family's reader, which brings viem (a sixth of a start's CPU from source),
// only when it follows an evm network; the btc and tron readers are light and always loaded. Each
// daemon runs in a process of its own over SQLite; its nodes (127.0.0.1:1) never answer, which its
// followers retry in the background.

const SCRIPT = join(import.meta.dir, "../support/family-modules.ts");

async function viemModulesLoaded(networks: Record<string, unknown>): Promise<number> {
  const proc = Bun.spawn([process.execPath, SCRIPT, JSON.stringify(networks)], { env: cleanEnv(), stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`family-modules.ts exited ${code}: ${err}`);
  return (JSON.parse(out.trim().split("\n").at(-1) as string) as { viem: number }).viem;
}

describe("the chain modules a daemon loads", () => {
  test("following btc and no evm network, it never loads viem", async () => {
    expect(await viemModulesLoaded({ btc: { rpc_urls: ["http://127.0.0.1:1"], follow: true } })).toBe(0);
  });

  test("following an evm network, it loads the evm reader with viem", async () => {
    expect(await viemModulesLoaded({ anv: { family: "evm", rpc_urls: ["http://127.0.0.1:1"], follow: true } })).toBeGreaterThan(0);
  });
});
