import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli, writeToml } from "../../delivery/fixtures.ts";
import { accountXpub, BIP380 } from "./vectors.ts";

// `chainwatch payments wallet set|list|remove`: the API's use cases on the command line (docs/cli.md).

let dir: string;
let config: string;
const XPUB = accountXpub("m/44'/60'/0'");

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chainwatch-wallet-cli-"));
  config = writeToml(dir);
  expect((await runCli(["migrate", "--config", config])).code).toBe(0);
  expect((await runCli(["accounts", "create", "shop", "--config", config])).code).toBe(0);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cli = (...args: string[]) => runCli([...args, "--config", config]);

describe("chainwatch payments wallet", () => {
  test("set prints the wallet (never the key), list shows it, remove removes it", async () => {
    const set = await cli("payments", "wallet", "set", "--account", "shop", "--network", "eth", "--key", XPUB, "--gap-limit", "25", "--json");
    expect(set.code).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({ network: "eth", kind: "bip44", fingerprint: "60b68b69", next_index: 0, gap_limit: 25, unused_tail: 0, created_at: expect.any(String) });
    expect(set.stdout).not.toContain(XPUB);
    const listed = await cli("payments", "wallet", "list", "--account", "shop");
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain("NETWORK");
    expect(listed.stdout).toMatch(/eth\s+bip44\s+60b68b69\s+0\s+25\s+0/);
    expect(listed.stdout).not.toContain(XPUB);
    const removed = await cli("payments", "wallet", "remove", "--account", "shop", "--network", "eth", "--json");
    expect([removed.code, removed.stdout]).toEqual([0, '{"network":"eth","deleted":true}\n']);
    expect(JSON.parse((await cli("payments", "wallet", "list", "--account", "shop", "--json")).stdout)).toEqual({ wallets: [] });
  });

  test("refuses a private key with the API's sentence, storing nothing", async () => {
    const r = await cli("payments", "wallet", "set", "--account", "shop", "--network", "btc", "--key", BIP380.xprv);
    expect([r.code, r.stdout]).toEqual([1, ""]);
    expect(r.stderr).toEndWith("chainwatch: --key: This is a private key; give the extended public key.\n");
    expect(r.stderr).not.toContain(BIP380.xprv);
    expect(JSON.parse((await cli("payments", "wallet", "list", "--account", "shop", "--json")).stdout)).toEqual({ wallets: [] });
  });

  test.each([
    [["--gap-limit", "0"], 2, "chainwatch: --gap-limit must be a whole number from 1 to 10000 (see --help)\n"],
    [["--gap-limit", "1000000000"], 2, "chainwatch: --gap-limit must be a whole number from 1 to 10000 (see --help)\n"],
    [["--network", "nope"], 2, "chainwatch: --network: unknown network nope (see --help)\n"],
  ])("refuses %p", async (extra, code, stderr) => {
    const args = ["payments", "wallet", "set", "--account", "shop", "--network", "eth", "--key", XPUB];
    for (let i = 0; i < extra.length; i += 2) {
      const at = args.indexOf(extra[i]);
      if (at >= 0) args[at + 1] = extra[i + 1];
      else args.push(extra[i], extra[i + 1]);
    }
    const r = await cli(...args);
    expect(r.code).toBe(code);
    expect(r.stderr).toEndWith(stderr);
  });

  test("remove of a network without a wallet says so", async () => {
    const r = await cli("payments", "wallet", "remove", "--account", "shop", "--network", "tron");
    expect([r.code, r.stdout]).toEqual([1, ""]);
    expect(r.stderr).toEndWith("chainwatch: Wallet not found. (account shop has no payment wallet on --network tron)\n");
  });
});
