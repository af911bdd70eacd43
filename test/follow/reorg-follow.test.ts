import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Address, Hash } from "viem";
import { storedTip } from "../../src/follow/core/chain-store.ts";
import { type Anvil, startAnvil } from "../support/anvil.ts";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import { until } from "../support/poll.ts";
import { deliveriesWithBodies } from "../../src/delivery/outbox.ts";

// Reorgs made by a real node (anvil_reorg), followed by a real daemon, delivered to a real
// receiver: the orphaned events come again with "removed": true, the new chain's events as usual.
// And min_confirmations holds a delivery until the block is deep enough.

type Body = Record<string, any>;
let anvil: Anvil;
let td: TestDaemon;
let n = 0;

const fresh = (): Address => `0x${(0xd0d0d000 + ++n).toString(16).padStart(40, "0")}` as Address;

beforeAll(async () => {
  anvil = await startAnvil();
  td = await startTestDaemon({
    config: {
      rate_limit: { per_key_rps: 1000 },
      networks: { anv: { family: "evm", decimals: 18, confirmations: 1, rpc_urls: [anvil.url], follow: true, start_height: 0, poll_interval_ms: 100, max_reorg_depth: 8, chain_id: 31337 } },
    },
  });
});
afterAll(async () => {
  await td.stop();
  await anvil.stop();
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
  const res = await client.request("POST", "/v1/address-watch/addresses", { network_slug: "anv", address });
  expect(res.status).toBe(201);
  return ((await res.json()) as Body).watch_id;
}

/** Waits (on the receiver) until `count` webhooks match; fails after 15 s. */
function received(sink: WebhookSink, match: (b: Body) => boolean, count = 1): Promise<Body[]> {
  return until(async () => sink.received.map((r) => JSON.parse(r.body) as Body).filter(match), (hits) => hits.length >= count, 15_000);
}

async function listing(client: TestClient, watchId: string): Promise<Body[]> {
  const res = await client.request("GET", `/v1/address-watch/events?watch_id=${watchId}&limit=1000`);
  return ((await res.json()) as Body).events;
}

/** Waits until the daemon has stored the node's head. */
async function caughtUp(): Promise<number> {
  const head = Number(await anvil.public.getBlockNumber());
  await until(async () => (await storedTip(td.ctx.db, "anv"))?.height ?? -1, (tip) => tip >= head, 15_000);
  return head;
}

describe("reorgs on a followed node", () => {
  test("depth 1 with a replacing transaction: the orphaned payment comes again removed, the replacing one arrives", async () => {
    const { client, sink } = await subscriber();
    const w = fresh();
    const wId = await watch(client, w);
    const orphaned = await anvil.sendEth(anvil.accounts[0], w, 100n);
    const [first] = await received(sink, (b) => b.tx_hash === orphaned);
    expect(first.removed).toBe(false);

    await anvil.rpc("anvil_reorg", [1, [[{ from: anvil.accounts[1], to: w, value: "0xc8" }, 0]]]);
    const replacement = (await anvil.public.getBlock({ includeTransactions: false })).transactions[0] as Hash;
    const [retracted] = await received(sink, (b) => b.tx_hash === orphaned && b.removed === true);
    expect(retracted).toEqual({ ...first, removed: true });
    const [payment] = await received(sink, (b) => b.tx_hash === replacement);
    expect(payment).toMatchObject({ type: "payment", amount_raw: "200", removed: false, block_hash: (await anvil.public.getBlock()).hash });

    const events = await listing(client, wId);
    expect(events.find((e) => e.id === first.id)).toEqual({ ...first, removed: true });
    expect(events.find((e) => e.tx_hash === replacement)?.removed).toBe(false);
  });

  test("depth 3: three orphaned payments come again removed, the new chain's payment arrives", async () => {
    const { client, sink } = await subscriber();
    const w = fresh();
    await watch(client, w);
    const old: Hash[] = [];
    for (const v of [1n, 2n, 3n]) old.push(await anvil.sendEth(anvil.accounts[2], w, v));
    const originals = await received(sink, (b) => old.includes(b.tx_hash), 3);

    await anvil.rpc("anvil_reorg", [3, [[{ from: anvil.accounts[3], to: w, value: "0x7" }, 1]]]);
    const head = await anvil.public.getBlockNumber();
    const replacing = (await anvil.public.getBlock({ blockNumber: head - 1n })).transactions[0] as Hash;
    const retracted = await received(sink, (b) => old.includes(b.tx_hash) && b.removed === true, 3);
    expect(retracted.map((b) => b.id).sort()).toEqual(originals.map((b) => b.id).sort());
    for (const r of retracted) expect(r).toEqual({ ...originals.find((o) => o.id === r.id), removed: true });
    const [payment] = await received(sink, (b) => b.tx_hash === replacing);
    expect(payment).toMatchObject({ amount_raw: "7", block_height: Number(head - 1n), removed: false });
    // Each reorg counted once, where the ingest applied it: depth 1 above, depth 3 here.
    const metrics = await (await fetch(`${td.url}/metrics`)).text();
    expect(metrics).toContain('chainwatch_reorgs_total{network="anv"} 2');
  });

  test("min_confirmations 3 holds a payment's delivery until the third block", async () => {
    const { client, sink } = await subscriber({ min_confirmations: 3 });
    const w = fresh();
    await watch(client, w);
    const tx = await anvil.sendEth(anvil.accounts[4], w, 5n);
    await anvil.mined(tx);
    await caughtUp();
    await anvil.test.mine({ blocks: 1 });
    await caughtUp();
    // Stored with two confirmations: the delivery waits, held.
    const held = await deliveriesWithBodies(td.ctx.db).where("account_id", "=", client.accountId).execute();
    expect(held.map((d) => [d.status, JSON.parse(d.body).tx_hash])).toEqual([["held", tx]]);
    expect(sink.received).toHaveLength(0);
    await anvil.test.mine({ blocks: 1 });
    const [payment] = await received(sink, (b) => b.tx_hash === tx);
    expect(payment).toMatchObject({ type: "payment", amount_raw: "5", removed: false });
  });
});
