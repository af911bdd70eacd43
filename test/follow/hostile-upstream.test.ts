import { afterEach, describe, expect, test } from "bun:test";
import { storedTip } from "../../src/follow/core/chain-store.ts";
import { type FollowStatus, followStatus } from "../../src/follow/core/follow-status.ts";
import type { Logger } from "../../src/lib/log.ts";
import { startAnvil } from "../support/anvil.ts";
import { manualClock } from "../support/clock.ts";
import { startTestDaemon, type TestDaemon } from "../support/harness.ts";
import { until } from "../delivery/fixtures.ts";
import { chainOf, type FakeBlock, type FakeNode, hashOf, startFakeNode } from "./fake-node.ts";

// A real daemon following a node that misbehaves: a hand-driven JSON-RPC server on 127.0.0.1
// (fake-node.ts). Whatever the node does, the follower stores nothing it should not, reports the
// trouble in `follow status` (and once in the log), and takes a reorg only for a reorg.

const W = "0x00000000000000000000000000000000000000a1";
const SENDER = "0x00000000000000000000000000000000000000b2";

let td: TestDaemon | null = null;
const nodes: FakeNode[] = [];
afterEach(async () => {
  await td?.stop();
  td = null;
  for (const n of nodes.splice(0)) n.stop();
});

type Line = { level: string; msg: string; fields?: Record<string, unknown> };

/** A logger keeping every line, for "logged once" checks. */
function capture(): Logger & { lines: Line[] } {
  const lines: Line[] = [];
  const at = (level: string) => (msg: string, fields?: Record<string, unknown>) => void lines.push({ level, msg, fields });
  return { lines, debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

function node(chainId: number, blocks: FakeBlock[]): FakeNode {
  const n = startFakeNode({ chainId, blocks });
  nodes.push(n);
  return n;
}

/** A daemon following `hst` from height 0 on `urls`, polling every 20 ms. */
async function follow(urls: string[], opts: { network?: Record<string, unknown>; clock?: ReturnType<typeof manualClock>; log?: Logger } = {}): Promise<TestDaemon> {
  td = await startTestDaemon({
    clock: opts.clock,
    log: opts.log,
    config: {
      networks: {
        hst: { family: "evm", decimals: 18, confirmations: 1, rpc_urls: urls, follow: true, start_height: 0, poll_interval_ms: 20, max_reorg_depth: 4, ...opts.network },
      },
    },
  });
  return td;
}

const status = async (d: TestDaemon): Promise<FollowStatus> => (await followStatus(d.ctx.db, d.config, d.ctx.clock.now())).find((s) => s.network === "hst") as FollowStatus;
const tip = async (d: TestDaemon) => (await storedTip(d.ctx.db, "hst"))?.height ?? null;
const storedHashes = async (d: TestDaemon) => (await d.ctx.db.selectFrom("blocks").select("hash").where("network", "=", "hst").execute()).map((b) => b.hash);
const orphaned = async (d: TestDaemon) => (await d.ctx.db.selectFrom("blocks").select("hash").where("network", "=", "hst").where("status", "=", "orphaned").execute()).length;
const metrics = (d: TestDaemon) => d.daemon.deps.metrics.render();

describe("malformed answers are upstream errors", () => {
  test("hashes that are no hashes stop nothing for good and are never taken for a deep reorg", async () => {
    const n = node(7, chainOf("a", 0, 3));
    const d = await follow([n.url]);
    await until(() => tip(d), (h) => h === 3);

    // The node starts answering junk hashes, and has a block 4.
    n.blocks.set(4, chainOf("a", 4, 4)[0]);
    const junk = `0x${"z".repeat(64)}`;
    n.rewrite = (b) => ({ ...b, hash: junk, parentHash: junk });
    // (A poll already past eth_blockNumber may first meet the junk at block 3.)
    const malformed = `the node sent a malformed block 4: hash is not a hash (0x + 64 hex digits) ("0x${"z".repeat(42)}...)`;
    const s = await until(() => status(d), (x) => x.last_error === malformed);
    expect(s).toMatchObject({ state: "error", stored_tip: 3 });
    expect(await orphaned(d)).toBe(0);

    // Well again: the follower goes on by itself, no rewind needed.
    n.rewrite = (b) => b;
    await until(() => status(d), (x) => x.state === "following" && x.stored_tip === 4);
    expect((await status(d)).last_error).toBeNull();
    expect(metrics(d)).not.toContain("chainwatch_deep_reorgs_total");
  });

  test("HTML in a transaction's from field is refused: nothing of its block is stored or delivered", async () => {
    const n = node(7, chainOf("a", 0, 3));
    const log = capture();
    const d = await follow([n.url], { log });
    const client = await d.client({ credits: 1_000_000 });
    expect((await client.request("POST", "/v1/address-watch/addresses", { network_slug: "hst", address: W })).status).toBe(201);
    await until(() => tip(d), (h) => h === 3);

    const tx = { hash: hashOf("e", 1), from: "<b>pwned</b>", to: W, value: "0xde0b6b3a7640000" };
    n.blocks.set(4, chainOf("a", 4, 4, hashOf("a", 3), { 4: [tx] })[0]);
    const s = await until(() => status(d), (x) => x.state === "error");
    expect(s.last_error).toBe('the node sent a malformed block 4: transactions[0].from is not an address (0x + 40 hex digits) ("<b>pwned</b>")');
    expect(await tip(d)).toBe(3);
    const events = async () => ((await (await client.request("GET", "/v1/address-watch/events?type=payment")).json()) as { events: Record<string, unknown>[] }).events;
    expect(await events()).toEqual([]);
    // Polled again and again, logged once.
    const polls = n.calls.length;
    await until(async () => n.calls.length, (c) => c >= polls + 10);
    expect(log.lines.filter((l) => l.msg === "follower poll failed")).toEqual([
      { level: "warn", msg: "follower poll failed", fields: { network: "hst", error: s.last_error } },
    ]);

    // The node corrects the block: it is stored with the real sender.
    n.blocks.set(4, chainOf("a", 4, 4, hashOf("a", 3), { 4: [{ ...tx, from: SENDER }] })[0]);
    const [payment] = await until(events, (e) => e.length === 1);
    expect(payment).toMatchObject({ type: "payment", address: W, tx_hash: tx.hash, amount: "1", block_height: 4 });
    expect(log.lines.filter((l) => l.msg === "follower recovered")).toHaveLength(1);
  });
});

describe("chain id", () => {
  test("a node on another chain than chain_id stops following before any block is stored, naming both ids", async () => {
    const n = node(1, chainOf("a", 0, 3));
    const d = await follow([n.url], { network: { chain_id: 7 } });
    const s = await until(() => status(d), (x) => x.state === "error");
    expect(s.last_error).toBe(`upstream ${n.url} is on chain id 1, not 7 ([networks.hst] chain_id); nothing it sends is stored`);
    expect(await storedHashes(d)).toEqual([]);
    // The node is fixed (the right chain behind the same URL): following starts.
    n.chainId = 7;
    await until(() => status(d), (x) => x.state === "following" && x.stored_tip === 3);
  });

  test("a real node (anvil, chain id 31337) is not followed under chain_id 1", async () => {
    const anvil = await startAnvil();
    try {
      await anvil.rpc("anvil_mine", ["0x3"]);
      const d = await follow([anvil.url], { network: { chain_id: 1 } });
      const s = await until(() => status(d), (x) => x.state === "error");
      expect(s.last_error).toBe(`upstream ${anvil.url} is on chain id 31337, not 1 ([networks.hst] chain_id); nothing it sends is stored`);
      expect(await storedHashes(d)).toEqual([]);
    } finally {
      await td?.stop();
      td = null;
      await anvil.stop();
    }
  });

  test("a failover to an upstream on another chain is refused; the follower goes on when the first upstream is back", async () => {
    const primary = node(7, chainOf("a", 0, 3));
    const backup = node(8, chainOf("b", 0, 9));
    const clock = manualClock();
    const d = await follow([primary.url, backup.url], { clock, network: { chain_id: 7 } });
    await until(() => tip(d), (h) => h === 3);

    primary.down = true;
    const s = await until(() => status(d), (x) => x.state === "error");
    expect(s.last_error).toBe(`upstream ${backup.url} is on chain id 8, not 7 ([networks.hst] chain_id); nothing it sends is stored`);
    expect(s.upstream).toBe(backup.url);
    expect((await storedHashes(d)).filter((h) => h.startsWith("0xb"))).toEqual([]);
    expect(await tip(d)).toBe(3);

    // Back, and past its backoff: its chain id is checked again, then it is followed.
    primary.down = false;
    for (const b of chainOf("a", 4, 5)) primary.blocks.set(Number(b.number), b);
    clock.advance(60_000);
    await until(() => status(d), (x) => x.state === "following" && x.stored_tip === 5);
    expect(primary.calls.filter((m) => m === "eth_chainId")).toHaveLength(2);
  });

  test("a node switching chains without failing is reported as another chain, not as a deep reorg", async () => {
    const n = node(7, chainOf("a", 0, 3));
    // No chain_id configured: the follower holds the node to the id it answered first.
    const d = await follow([n.url]);
    await until(() => tip(d), (h) => h === 3);

    n.chainId = 9;
    n.blocks = new Map(chainOf("c", 0, 5).map((b) => [Number(b.number), b]));
    const s = await until(() => status(d), (x) => x.state === "error");
    expect(s.last_error).toBe(`upstream ${n.url} is on chain id 9, not 7 (the chain id the follower started on); nothing it sends is stored`);
    expect(await tip(d)).toBe(3);
    expect(await orphaned(d)).toBe(0);
    expect(metrics(d)).not.toContain("chainwatch_deep_reorgs_total");
  });
});

describe("blocks that do not link", () => {
  test("a node whose next block names a parent it does not have is an error in follow status, not a silent catch-up", async () => {
    const n = node(7, chainOf("a", 0, 3));
    const d = await follow([n.url]);
    await until(() => tip(d), (h) => h === 3);

    const stray = hashOf("dd", 3);
    for (const b of chainOf("a", 4, 6, stray)) n.blocks.set(Number(b.number), b);
    const s = await until(() => status(d), (x) => x.state === "error");
    expect(s.last_error).toBe(`the node's blocks do not link: block 4 (${hashOf("a", 4)}) names parent ${stray}, but the node's block 3 is ${hashOf("a", 3)}`);
    expect(s).toMatchObject({ stored_tip: 3, node_height: 6 });
    expect(await orphaned(d)).toBe(0);

    n.blocks.set(4, chainOf("a", 4, 4)[0]);
    await until(() => status(d), (x) => x.state === "following" && x.stored_tip === 6);
  });
});

describe("one hash at two heights", () => {
  test("is refused as a feed's batch would be: nothing of it is stored, follow status says why, the follower goes on once the node is well", async () => {
    const n = node(7, chainOf("a", 0, 3));
    const d = await follow([n.url]);
    await until(() => tip(d), (h) => h === 3);

    // Block 5 links to block 4 and bears its hash.
    const [four] = chainOf("a", 4, 4);
    n.blocks.set(5, { ...chainOf("a", 5, 5, hashOf("a", 4))[0], hash: hashOf("a", 4) });
    n.blocks.set(4, four);
    const s = await until(() => status(d), (x) => x.state === "error");
    expect(s.last_error).toBe(`ingest refused blocks 4..5: [1].height: block ${hashOf("a", 4)} is at height 4 earlier in this batch; a block's hash names one height`);
    expect(await tip(d)).toBe(3);

    n.blocks.set(5, chainOf("a", 5, 5)[0]);
    await until(() => status(d), (x) => x.state === "following" && x.stored_tip === 5);
  });
});

describe("reorg brake", () => {
  test("a tip that changes on every poll is followed through at most max_reorgs_per_minute reorgs a minute", async () => {
    const n = node(7, chainOf("a", 0, 5));
    // Each time the follower asks for the head, block 5 is another block (on the same parent).
    let generation = 0;
    n.onHead = () => {
      generation += 1;
      n.blocks.set(5, chainOf(`f${generation % 10}`, 5, 5, hashOf("a", 4))[0]);
    };
    const clock = manualClock();
    const log = capture();
    const d = await follow([n.url], { clock, log, network: { max_reorgs_per_minute: 2 } });
    const paused = `reorg brake: more than 2 reorgs within a minute (max_reorgs_per_minute); following paused until 2026-11-21T12:01:00.000+00:00`;
    const s = await until(() => status(d), (x) => x.state === "error");
    expect(s.last_error).toBe(paused);
    expect(await orphaned(d)).toBe(2);

    // Held: the node keeps flipping, nothing more is orphaned, and the pause is logged once.
    const polls = n.calls.filter((m) => m === "eth_blockNumber").length;
    await until(async () => n.calls.filter((m) => m === "eth_blockNumber").length, (c) => c >= polls + 10);
    expect(await orphaned(d)).toBe(2);
    expect(metrics(d)).toContain('chainwatch_reorgs_total{network="hst"} 2');
    expect(log.lines.filter((l) => l.msg === "follower paused")).toEqual([{ level: "warn", msg: "follower paused", fields: { network: "hst", error: paused } }]);

    // A minute on, two more reorgs, then held again until the next minute.
    clock.advance(60_000);
    const again = await until(() => status(d), (x) => x.state === "error" && x.last_error !== paused);
    expect(again.last_error).toBe(`reorg brake: more than 2 reorgs within a minute (max_reorgs_per_minute); following paused until 2026-11-21T12:02:00.000+00:00`);
    expect(await orphaned(d)).toBe(4);
    expect(log.lines.filter((l) => l.msg === "follower recovered")).toHaveLength(1);
  });
});
