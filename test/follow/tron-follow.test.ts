import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { storedTip } from "../../src/follow/core/chain-store.ts";
import { type FollowStatus, followStatus } from "../../src/follow/core/follow-status.ts";
import { until } from "../delivery/fixtures.ts";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { blockIdOf, MAINNET_CHAIN_ID, startTronNode, type TronNode, type FakeTronTx, tronAddress, tronChain, txIdOf } from "../support/tron-node.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import { deliveriesWithBodies } from "../../src/delivery/outbox.ts";

// A real daemon following a java-tron node (test/support/tron-node.ts, answering with the recorded
// bodies of test/fixtures/tron/) through its HTTP API and TronGrid's API key header, delivering to
// real receivers: TRX and USDT payments and payouts, reverted calls, a crowded block, a payment
// order paid in USDT, a reorg and min_confirmations.

type Body = Record<string, any>;
const USDT = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t";
// A TRC-20 token chainwatch has no metadata for: its decimals come from the node.
const TOKEN18 = tronAddress("7e5700000000000000000000000000000000aa18");
const API_KEY = "k-4f1c2d";

let node: TronNode;
let td: TestDaemon;
let n = 0;
/** A fresh address nobody has used. */
const fresh = () => tronAddress(0x7e000000 + ++n);
const SOMEONE = tronAddress(0x50e0e);

/** Chain tag of the blocks mined from now on (a reorg switches it). */
let tag = "a";
/** Appends a block on the node's head holding `txs`; returns its height. */
function mine(txs: FakeTronTx[] = []): number {
  const head = Math.max(...node.blocks.keys());
  const height = head + 1;
  const [block] = tronChain(tag, height, height, { parent: node.blocks.get(head)?.id, txs: { [height]: txs } });
  node.blocks.set(height, block);
  return height;
}
const tip = async () => (await storedTip(td.ctx.db, "tron"))?.height ?? -1;
const caughtUp = async () => until(tip, (h) => h >= Math.max(...node.blocks.keys()));

beforeAll(async () => {
  node = startTronNode({ blocks: tronChain(tag, 0, 2), tokens: { [TOKEN18]: 18 } });
  node.apiKey = API_KEY;
  td = await startTestDaemon({
    config: {
      rate_limit: { per_key_rps: 1000 },
      networks: {
        tron: {
          family: "tron",
          decimals: 6,
          confirmations: 3,
          rpc_urls: [node.url],
          follow: true,
          start_height: 0,
          poll_interval_ms: 50,
          max_reorg_depth: 8,
          chain_id: MAINNET_CHAIN_ID,
          api_key: API_KEY,
          tokens: { [USDT]: { symbol: "USDT", decimals: 6 } },
        },
      },
    },
  });
});
afterAll(async () => {
  await td.stop();
  node.stop();
});

/** An account whose wallet webhooks (no block events) go to a fresh receiver, with extra filter keys. */
async function subscriber(filters: Record<string, unknown> = {}): Promise<{ client: TestClient; sink: WebhookSink }> {
  const sink = startWebhookSink();
  const client = await td.client({ credits: 10_000_000, slots: 50 });
  const res = await client.request("PUT", "/v1/address-watch/webhook", { url: sink.url, enabled: true, events: { block: false, ...filters } });
  expect(res.status).toBe(200);
  return { client, sink };
}

async function watch(client: TestClient, address: string): Promise<string> {
  const res = await client.request("POST", "/v1/address-watch/addresses", { network_slug: "tron", address });
  expect(res.status).toBe(201);
  return ((await res.json()) as Body).watch_id;
}

/** Waits (on the receiver) until `count` webhooks match; fails after 15 s. */
async function received(sink: WebhookSink, match: (b: Body) => boolean, count = 1): Promise<Body[]> {
  const hits = () => sink.received.map((r) => JSON.parse(r.body) as Body).filter(match);
  await until(async () => hits().length, (k) => k >= count, 15_000);
  return hits();
}

async function listing(client: TestClient, watchId: string): Promise<Body[]> {
  const res = await client.request("GET", `/v1/address-watch/events?watch_id=${watchId}&limit=1000`);
  expect(res.status).toBe(200);
  return ((await res.json()) as Body).events;
}

describe("following a java-tron node", () => {
  test("a TRX transfer to a watched address is a payment in TRX (6 decimals), one from a watched address a payout", async () => {
    const { client, sink } = await subscriber();
    const w = fresh();
    const s = fresh();
    const wId = await watch(client, w);
    const sId = await watch(client, s);
    const inTx = txIdOf("trx-in");
    const outTx = txIdOf("trx-out");
    const height = mine([
      { kind: "trx", id: inTx, from: SOMEONE, to: w, amount: 1_500_000 },
      { kind: "trx", id: outTx, from: s, to: SOMEONE, amount: 250_000 },
    ]);
    const [payment] = await received(sink, (b) => b.tx_hash === inTx);
    expect(payment).toMatchObject({
      type: "payment",
      direction: "in",
      watch_id: wId,
      network: "tron",
      address: w,
      tx_hash: inTx,
      block_height: height,
      block_hash: blockIdOf(tag, height),
      asset: null,
      amount: "1.5",
      amount_raw: "1500000",
      removed: false,
    });
    const [payout] = await received(sink, (b) => b.tx_hash === outTx);
    expect(payout).toMatchObject({ type: "payout", direction: "out", watch_id: sId, address: s, asset: null, amount: "0.25", amount_raw: "250000" });
  });

  test("a USDT transfer is a payment in USDT (asset = the contract, 6 decimals from the config); a token's own decimals() is asked when not configured", async () => {
    const { client, sink } = await subscriber();
    const w = fresh();
    const s = fresh();
    await watch(client, w);
    await watch(client, s);
    const usdtIn = txIdOf("usdt-in");
    const usdtOut = txIdOf("usdt-out");
    const other = txIdOf("token18-in");
    mine([
      { kind: "trc20", id: usdtIn, from: SOMEONE, token: USDT, to: w, value: 12_500_000n },
      { kind: "trc20", id: usdtOut, from: s, token: USDT, to: SOMEONE, value: 3_000_000n },
      { kind: "trc20", id: other, from: SOMEONE, token: TOKEN18, to: w, value: 2n * 10n ** 18n },
    ]);
    const [payment] = await received(sink, (b) => b.tx_hash === usdtIn);
    expect(payment).toMatchObject({ type: "payment", direction: "in", address: w, asset: USDT, amount: "12.5", amount_raw: "12500000" });
    const [payout] = await received(sink, (b) => b.tx_hash === usdtOut);
    expect(payout).toMatchObject({ type: "payout", direction: "out", address: s, asset: USDT, amount: "3", amount_raw: "3000000" });
    const [token] = await received(sink, (b) => b.tx_hash === other);
    expect(token).toMatchObject({ type: "payment", asset: TOKEN18, amount: "2", amount_raw: "2000000000000000000" });
    // USDT comes from the config: the node was asked for the other token's decimals only, once.
    const asked = node.requests.filter((r) => r.path === "/wallet/triggerconstantcontract");
    expect(asked).toHaveLength(1);
    const cached = await td.ctx.db.selectFrom("token_decimals").select(["address", "decimals"]).where("network", "=", "tron").execute();
    expect(cached).toEqual([{ address: TOKEN18, decimals: 18 }]);
  });

  test("a reverted USDT transfer gives no event: its Transfer log never happened", async () => {
    const { client, sink } = await subscriber();
    const w = fresh();
    const wId = await watch(client, w);
    const reverted = txIdOf("usdt-reverted");
    const marker = txIdOf("usdt-after-revert");
    mine([{ kind: "trc20", id: reverted, from: SOMEONE, token: USDT, to: w, value: 5_000_000n, result: "REVERT" }]);
    // A later payment to the same address: once it is delivered, the reverted block was ingested before it.
    mine([{ kind: "trx", id: marker, from: SOMEONE, to: w, amount: 1 }]);
    await received(sink, (b) => b.tx_hash === marker);
    expect((await listing(client, wId)).map((e) => e.tx_hash)).toEqual([marker]);
    expect(sink.received.map((r) => JSON.parse(r.body)).filter((b) => b.tx_hash === reverted)).toEqual([]);
  });

  test("a TRC-10 transfer (TransferAssetContract) is activity, not a payment: one `other` event each side, no amount", async () => {
    const { client, sink } = await subscriber();
    const w = fresh();
    const s = fresh();
    await watch(client, w);
    await watch(client, s);
    const tx = txIdOf("trc10");
    mine([{ kind: "trc10", id: tx, from: s, to: w, asset: "1002000", amount: 500 }]);
    const got = await received(sink, (b) => b.tx_hash === tx, 2);
    expect(got.map((b) => [b.address, b.type, b.direction, b.asset, b.amount_raw]).sort()).toEqual(
      [
        [s, "other", "out", null, "0"],
        [w, "other", "in", null, "0"],
      ].sort(),
    );
  });

  test("200 transactions in one block give 200 payments of that block, read in two requests", async () => {
    const { client, sink } = await subscriber();
    const w = fresh();
    const wId = await watch(client, w);
    const txs: FakeTronTx[] = Array.from({ length: 200 }, (_, i) =>
      i % 2 === 0 ? { kind: "trx", id: txIdOf(`crowd-${i}`), from: SOMEONE, to: w, amount: i + 1 } : { kind: "trc20", id: txIdOf(`crowd-${i}`), from: SOMEONE, token: USDT, to: w, value: BigInt(i + 1) },
    );
    await caughtUp();
    const before = node.requests.length;
    const height = mine(txs);
    const got = await received(sink, (b) => b.address === w, 200);
    expect(got).toHaveLength(200);
    expect(new Set(got.map((b) => b.block_height))).toEqual(new Set([height]));
    const events = await listing(client, wId);
    expect(events.map((e) => Number(e.amount_raw)).sort((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect(events.filter((e) => e.asset === USDT)).toHaveLength(100);
    const reads = node.requests.slice(before).map((r) => r.path);
    expect(reads.filter((p) => p === "/wallet/getblockbynum")).toEqual(["/wallet/getblockbynum"]);
    expect(reads.filter((p) => p === "/wallet/gettransactioninfobyblocknum")).toEqual(["/wallet/gettransactioninfobyblocknum"]);
  });

  test("a payment order in USDT is seen at once and paid once `confirmations` (3) blocks are mined", async () => {
    const client = await td.client({ credits: 10_000_000, slots: 5 });
    const payments = startWebhookSink();
    try {
      expect((await client.request("PUT", "/v1/payments/settings", { webhook_url: payments.url })).status).toBe(200);
      const address = fresh();
      const res = await client.request("POST", "/v1/payments", { order_id: "tron-usdt-1", network: "tron", address, amount: "25", asset: USDT, decimals: 6 });
      expect(res.status).toBe(201);
      const order = (await res.json()) as Body;
      expect(order).toMatchObject({ asset: USDT, amount: "25", amount_raw: "25000000", status: "pending" });
      const tx = txIdOf("order-usdt");
      mine([{ kind: "trc20", id: tx, from: SOMEONE, token: USDT, to: address, value: 25_000_000n }]);
      const [seen] = await received(payments, (b) => b.payment_id === order.payment_id);
      expect(seen).toMatchObject({ event: "seen", status: "seen", tx_hash: tx, asset: USDT, amount_received: "25", amount_received_raw: "25000000" });
      // One confirmation of three: nothing more until blocks are mined.
      expect(((await (await client.request("GET", `/v1/payments/${order.payment_id}`)).json()) as Body).status).toBe("seen");
      mine();
      mine();
      const events = await received(payments, (b) => b.payment_id === order.payment_id, 3);
      expect(events.map((b) => b.event)).toEqual(["seen", "aml_check", "paid"]);
      expect(events[2]).toMatchObject({ status: "paid", tx_hash: tx, asset: USDT, amount_received: "25" });
    } finally {
      await payments.stop();
    }
  });

  test("min_confirmations 3 holds a payment's delivery until the third block", async () => {
    const { client, sink } = await subscriber({ min_confirmations: 3 });
    const w = fresh();
    await watch(client, w);
    const tx = txIdOf("held-payment");
    mine([{ kind: "trx", id: tx, from: SOMEONE, to: w, amount: 5 }]);
    mine();
    await caughtUp();
    // Stored with two confirmations: the delivery waits, held.
    const held = await deliveriesWithBodies(td.ctx.db).where("account_id", "=", client.accountId).execute();
    expect(held.map((d) => [d.status, JSON.parse(d.body).tx_hash])).toEqual([["held", tx]]);
    expect(sink.received).toHaveLength(0);
    mine();
    const [payment] = await received(sink, (b) => b.tx_hash === tx);
    expect(payment).toMatchObject({ type: "payment", amount_raw: "5", removed: false });
  });

  test("a fork 2 blocks deep: both orphaned payments come again with removed: true, the new chain's payment arrives", async () => {
    const { client, sink } = await subscriber();
    const w = fresh();
    const wId = await watch(client, w);
    const old = [txIdOf("fork-old-1"), txIdOf("fork-old-2")];
    const first = mine([{ kind: "trx", id: old[0], from: SOMEONE, to: w, amount: 1 }]);
    mine([{ kind: "trc20", id: old[1], from: SOMEONE, token: USDT, to: w, value: 2n }]);
    const originals = await received(sink, (b) => old.includes(b.tx_hash), 2);
    await caughtUp();

    // The node switches to another chain from the common ancestor below `first`, one block longer.
    for (const h of [...node.blocks.keys()]) if (h >= first) node.blocks.delete(h);
    tag = "b";
    const replacing = txIdOf("fork-new");
    const replacedAt = mine([{ kind: "trx", id: replacing, from: SOMEONE, to: w, amount: 3 }]);
    mine();
    mine();

    const retracted = await received(sink, (b) => old.includes(b.tx_hash) && b.removed === true, 2);
    for (const r of retracted) expect(r).toEqual({ ...originals.find((o) => o.id === r.id), removed: true });
    const [payment] = await received(sink, (b) => b.tx_hash === replacing);
    expect(payment).toMatchObject({ amount_raw: "3", block_height: replacedAt, block_hash: blockIdOf("b", replacedAt), removed: false });
    const events = await listing(client, wId);
    expect(events.map((e) => [e.tx_hash, e.removed])).toEqual([
      [old[0], true],
      [old[1], true],
      [replacing, false],
    ]);
    const metrics = await (await fetch(`${td.url}/metrics`)).text();
    expect(metrics).toContain('chainwatch_reorgs_total{network="tron"} 1');
  });

  test("every request carried the API key; the chain was checked on the genesis block; follow status shows the node", async () => {
    await caughtUp();
    expect(node.requests.filter((r) => r.key !== API_KEY)).toEqual([]);
    const paths = new Set(node.requests.map((r) => r.path));
    expect([...paths].sort()).toEqual(["/wallet/getblock", "/wallet/getblockbynum", "/wallet/gettransactioninfobyblocknum", "/wallet/triggerconstantcontract"]);
    const status = (await followStatus(td.ctx.db, td.config, td.ctx.clock.now())).find((s) => s.network === "tron") as FollowStatus;
    expect(status).toMatchObject({ network: "tron", upstream: node.url, state: "following", last_error: null, stored_tip: Math.max(...node.blocks.keys()) });
    // The key is in no log line, metric or status.
    expect(JSON.stringify(status)).not.toContain(API_KEY);
    expect(await (await fetch(`${td.url}/metrics`)).text()).not.toContain(API_KEY);
  });
});
