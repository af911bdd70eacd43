import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Litecoind, startLitecoind } from "../support/litecoind.ts";

// The litecoind harness itself: a real regtest node that mines, pays and stops cleanly.

let node: Litecoind;

beforeAll(async () => {
  node = await startLitecoind();
  await node.createWallet("harness");
}, 60_000);
afterAll(async () => {
  await node?.stop();
}, 30_000);

/** Whether a process with this pid still exists (signal 0 only checks). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("litecoind harness", () => {
  test("is a regtest node answering with the URL's credentials", async () => {
    const info = await node.rpc<{ chain: string }>("getblockchaininfo");
    expect(info.chain).toBe("regtest");
    expect(node.url).toMatch(/^http:\/\/[^:@/]+:[^@/]+@127\.0\.0\.1:\d+\/$/);
  });

  test("makes addresses of each type with regtest prefixes", async () => {
    expect(await node.newAddress("bech32")).toMatch(/^rltc1/);
    expect(await node.newAddress("legacy")).toMatch(/^[mn]/);
    expect(await node.newAddress("p2sh-segwit")).toMatch(/^Q/);
  });

  test("mines 101 blocks, pays a bech32 address, and the next block holds the output", async () => {
    const start = await node.rpc<number>("getblockcount");
    expect((await node.mine(101)).length).toBe(101);
    const to = await node.newAddress("bech32");
    const txid = await node.send(to, "0.12345678");
    const [hash] = await node.mine(1);
    const block = await node.rpc<{ height: number; tx: { txid: string; vout: { value: number; scriptPubKey: { addresses?: string[]; address?: string } }[] }[] }>("getblock", [hash, 2]);
    expect(block.height).toBe(start + 102);
    const tx = block.tx.find((t) => t.txid === txid);
    expect(tx).toBeDefined();
    const paid = tx?.vout.find((o) => (o.scriptPubKey.address ?? o.scriptPubKey.addresses?.[0]) === to);
    expect(paid?.value).toBe(0.12345678);
  });

  test("sendMany pays several addresses in one transaction", async () => {
    const a = await node.newAddress("legacy");
    const b = await node.newAddress("p2sh-segwit");
    const txid = await node.sendMany({ [a]: "0.5", [b]: "0.25" });
    const [hash] = await node.mine(1);
    const block = await node.rpc<{ tx: { txid: string; vout: unknown[] }[] }>("getblock", [hash, 2]);
    // Two payments and the change.
    expect(block.tx.find((t) => t.txid === txid)?.vout.length).toBe(3);
  });
});

describe("litecoind stop", () => {
  test("ends the process and removes the datadir", async () => {
    const other = await startLitecoind();
    expect(alive(other.pid)).toBe(true);
    await other.stop();
    expect(alive(other.pid)).toBe(false);
    expect(existsSync(other.datadir)).toBe(false);
    // A second stop() is harmless.
    await other.stop();
  }, 60_000);

  test("shutdown leaves a kept datadir whole: a node started on it again finds the same chain", async () => {
    const datadir = mkdtempSync(join(tmpdir(), "chainwatch-litecoind-kept-"));
    try {
      const first = await startLitecoind(["-rpcservertimeout=1"], { datadir });
      expect(first.datadir).toBe(datadir);
      await first.createWallet("kept");
      const hashes = await first.mine(5);
      await first.shutdown();
      expect(alive(first.pid)).toBe(false);
      expect(existsSync(datadir)).toBe(true);
      // Harmless after a shutdown, and it leaves a datadir the caller keeps.
      await first.stop();
      expect(existsSync(datadir)).toBe(true);

      const again = await startLitecoind([], { datadir });
      try {
        expect(await again.rpc<number>("getblockcount")).toBe(5);
        expect(await again.rpc<string>("getbestblockhash")).toBe(hashes[4]);
        expect(await again.rpc<string[]>("listwalletdir").then((d) => JSON.stringify(d))).toContain('"kept"');
      } finally {
        await again.stop();
      }
      expect(existsSync(datadir)).toBe(true);
    } finally {
      rmSync(datadir, { recursive: true, force: true });
    }
  }, 60_000);
});
