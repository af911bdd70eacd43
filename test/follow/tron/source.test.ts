import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTronAddressBook } from "../../../src/follow/tron/address-book.ts";
import { createTronClient } from "../../../src/follow/tron/client.ts";
import { createTronSource } from "../../../src/follow/tron/source.ts";
import { systemClock } from "../../../src/lib/clock.ts";
import { silentLogger } from "../../../src/lib/log.ts";
import { createUpstreamPool } from "../../../src/upstream/pool.ts";
import { startTronNode, type TronNode, tronAddress, tronChain, txIdOf } from "../../support/tron-node.ts";

// When the Tron source asks a block's transaction infos: beside the block while blocks come with
// transactions (one round trip a block), after it once a block came without any (one request a
// block on a quiet chain). A hop in front of the node (test/support/tron-node.ts) notes the order
// in which requests arrive and answers leave; while `holding`, it answers a block only once that
// block's infos have been asked (or after 3 s, which the assertions then catch).

const PAY = { kind: "trx", id: txIdOf("pay"), from: tronAddress(0x50e0e), to: tronAddress(0x7e0001), amount: 5 } as const;

let node: TronNode;
let hop: ReturnType<typeof Bun.serve>;
let holding = false;
const seen: string[] = [];
/** Heights whose infos were asked, and a held block's release by its height. */
const infosAsked = new Set<number>();
const release = new Map<number, () => void>();

beforeAll(() => {
  // Blocks 1 and 3 hold a payment; block 2 none.
  node = startTronNode({ blocks: tronChain("a", 0, 3, { txs: { 1: [PAY], 3: [{ ...PAY, id: txIdOf("pay-3") }] } }) });
  hop = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      const body = await req.text();
      const num = Number((JSON.parse(body || "{}") as { num?: number }).num);
      const what = `${path.replace("/wallet/", "")} ${num}`;
      seen.push(`asked ${what}`);
      if (path === "/wallet/gettransactioninfobyblocknum") {
        infosAsked.add(num);
        release.get(num)?.();
      }
      if (path === "/wallet/getblockbynum" && holding && !infosAsked.has(num)) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 3000);
          release.set(num, () => {
            clearTimeout(timer);
            resolve();
          });
        });
        release.delete(num);
      }
      const res = await fetch(`${node.url}${path}`, { method: "POST", body, headers: { "Content-Type": "application/json" } });
      const text = await res.text();
      seen.push(`answered ${what}`);
      return new Response(text, { status: res.status, headers: { "Content-Type": "application/json" } });
    },
  });
});

afterAll(() => {
  hop.stop(true);
  node.stop();
});

function source() {
  const pool = createUpstreamPool({ network: "tron", urls: [`http://127.0.0.1:${hop.port}`], timeoutMs: 10_000, fetch, clock: systemClock, log: silentLogger });
  return createTronSource(createTronClient(pool, {}), createTronAddressBook());
}

describe("the tron source's two requests a block", () => {
  test("a block read first has its infos asked beside it, before the block is answered", async () => {
    seen.length = 0;
    infosAsked.clear();
    holding = true;
    try {
      const block = await source().fetch(1);
      expect(block?.transactions.map((t) => t.hash)).toEqual([txIdOf("pay")]);
    } finally {
      holding = false;
    }
    expect(seen.indexOf("asked gettransactioninfobyblocknum 1")).toBeGreaterThanOrEqual(0);
    expect(seen.indexOf("asked gettransactioninfobyblocknum 1")).toBeLessThan(seen.indexOf("answered getblockbynum 1"));
  });

  test("after a block without transactions, the next block's infos are asked only once it has some; an empty block costs one request", async () => {
    const s = source();
    await s.fetch(1);
    seen.length = 0;
    // Block 2 is empty: its infos were asked beside it (block 1 had a payment), and are not used.
    expect((await s.fetch(2))?.transactions).toEqual([]);
    expect(seen.filter((e) => e.startsWith("asked")).sort()).toEqual(["asked getblockbynum 2", "asked gettransactioninfobyblocknum 2"]);
    // Block 3 comes after an empty block: its infos wait for its transactions.
    seen.length = 0;
    expect((await s.fetch(3))?.transactions.map((t) => t.hash)).toEqual([txIdOf("pay-3")]);
    expect(seen).toEqual(["asked getblockbynum 3", "answered getblockbynum 3", "asked gettransactioninfobyblocknum 3", "answered gettransactioninfobyblocknum 3"]);
    // On a quiet chain, an empty block after an empty block is one request.
    await s.fetch(2);
    seen.length = 0;
    await s.fetch(2);
    expect(seen.filter((e) => e.startsWith("asked"))).toEqual(["asked getblockbynum 2"]);
  });
});
