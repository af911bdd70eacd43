import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addCredits } from "../../src/accounts/accounts.ts";
import { deliveryPrice } from "../../src/billing/pricing.ts";
import { manualClock } from "../support/clock.ts";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import { until } from "./fixtures.ts";
import { block, deliveriesOf, ingest, watchAndHook } from "./recovery-support.ts";

// docs/webhooks.md, "Replaying events": a replay is bounded per account. At most
// delivery.max_replay_pending replayed deliveries wait at once (past it 429), a replay the balance
// cannot pay for is 402, and an event already waiting in a replay is not queued again.

const CAP = 5;
const BLOCKS = 12;
const W = "0x3333333333333333333333333333333333333333";
const V = "0x5555555555555555555555555555555555555555";

const clock = manualClock();
const t0 = clock.now();
const sec = (ms: number) => Math.floor(ms / 1000);
let td: TestDaemon;
let sink: WebhookSink;
let a: TestClient;
/** A's events as listed, oldest first: block 1, payment 1, block 2, payment 2, … */
let ids: string[];

const replay = (body: unknown, c: TestClient = a) => c.request("POST", "/v1/address-watch/events/replay", body);
const answer = async (res: Response) => ({ status: res.status, body: (await res.json()) as Record<string, any> });
/** The account's replayed deliveries still to be sent. */
const waiting = async (c: TestClient = a) => (await deliveriesOf(td, c.accountId)).filter((d) => d.replay === 1 && d.status !== "succeeded");

async function listedIds(c: TestClient): Promise<string[]> {
  const res = await c.request("GET", "/v1/address-watch/events?limit=1000");
  return ((await res.json()) as { events: { id: string }[] }).events.map((e) => e.id);
}

/**
 * The receiver answers again: the waiting replayed deliveries are retried and succeed. The clock
 * moves on only once each has had its first (refused) attempt recorded, not while one is on its way.
 */
async function drain(c: TestClient = a): Promise<void> {
  await until(() => waiting(c), (ds) => ds.every((d) => d.attempts > 0 && d.lease_until === null));
  sink.respond(() => new Response("ok"));
  clock.advance(3_600_000);
  td.daemon.deps.wakeDelivery();
  await until(() => waiting(c), (ds) => ds.length === 0);
  sink.respond(() => new Response("down", { status: 503 }));
}

beforeAll(async () => {
  // A failed attempt waits an hour for its retry: replayed deliveries stay waiting until drain().
  td = await startTestDaemon({
    clock,
    config: { delivery: { max_replay_pending: CAP, backoff_seconds: [3600], max_attempts: 5, concurrency: 2 }, rate_limit: { per_key_rps: 1000 } },
  });
  sink = startWebhookSink();
  a = await td.client({ credits: 1_000_000 });
  // Payments only: each block gives the account two events, one of which its webhook takes.
  await watchAndHook(a, W, sink.url, { block: false });
  for (let h = 1; h <= BLOCKS; h++) {
    await ingest(td, block(h, [W]));
    clock.advance(1_000);
  }
  await until(() => deliveriesOf(td, a.accountId), (ds) => ds.length === BLOCKS && ds.every((d) => d.status === "succeeded"));
  ids = await listedIds(a);
  expect(ids.length).toBe(2 * BLOCKS);
  sink.respond(() => new Response("down", { status: 503 }));
});
afterAll(async () => {
  await td.stop();
  await sink.stop();
});

describe("the replay backlog of an account", () => {
  let cursor: string;

  test("a replay queues up to delivery.max_replay_pending and answers the cursor of the first event it left", async () => {
    const first = await answer(await replay({ since: sec(t0) }));
    // Payments 1–5 queued; payment 6 (listed 12th) did not fit, so the cursor is block 6 before it.
    expect(first).toEqual({ status: 202, body: { queued: CAP, next_after: ids[10] } });
    cursor = first.body.next_after;
    const rows = await waiting();
    expect(rows.map((d) => d.event_id)).toEqual([1, 3, 5, 7, 9].map((i) => ids[i]));
  });

  test("past it, 429 and nothing queued: the rest of the walk, or the whole range again", async () => {
    for (const body of [{ after: cursor }, { since: sec(t0) }]) {
      expect(await answer(await replay(body))).toEqual({ status: 429, body: { error: "Replay backlog full; wait for it to drain." } });
    }
    expect((await waiting()).length).toBe(CAP);
  });

  test("an event already waiting in a replay is not queued again: with room left, 202 with nothing queued", async () => {
    await drain();
    // Blocks 1–3 only, twice: the second finds their payments waiting.
    const range = { since: sec(t0), until: sec(t0 + 3_000) };
    expect(await answer(await replay(range))).toEqual({ status: 202, body: { queued: 3, next_after: null } });
    expect(await answer(await replay(range))).toEqual({ status: 202, body: { queued: 0, next_after: null } });
    const rows = await waiting();
    expect(rows.map((d) => d.event_id)).toEqual([1, 3, 5].map((i) => ids[i]));
    await drain();
  });

  test("once the backlog drained, the walk goes on from the cursor, and events delivered again may be replayed again", async () => {
    await drain();
    expect(await answer(await replay({ after: cursor }))).toEqual({ status: 202, body: { queued: CAP, next_after: ids[20] } });
    await drain();
    expect(await answer(await replay({ after: ids[20] }))).toEqual({ status: 202, body: { queued: 2, next_after: null } });
    await drain();
    expect(await answer(await replay({ since: sec(t0), until: sec(t0 + 3_000) }))).toEqual({ status: 202, body: { queued: 3, next_after: null } });
    await drain();
    const replayed = (await deliveriesOf(td, a.accountId)).filter((d) => d.replay === 1);
    // Payments 1–3 three times, 4–12 once; never two of one event waiting at once.
    expect(replayed.length).toBe(BLOCKS + 6);
  });

  test("two replays at once fill the backlog once between them", async () => {
    const [one, two] = await Promise.all([replay({ since: sec(t0) }), replay({ since: sec(t0) })].map(async (r) => answer(await r)));
    expect([one.status, two.status].sort()).toEqual([202, 429]);
    const rows = await waiting();
    expect(rows.length).toBe(CAP);
    expect(new Set(rows.map((d) => d.event_id)).size).toBe(CAP);
    await drain();
  });
});

describe("a replay the balance cannot pay for", () => {
  let b: TestClient;
  let bIds: string[];
  let price: number;

  beforeAll(async () => {
    price = deliveryPrice(td.config, { kind: "event", event_type: "payment", network: "eth" });
    expect(price).toBeGreaterThan(0);
    b = await td.client({ credits: 0 });
    // Its events are stored while it has no webhook, so none was delivered (or paused) at first.
    const watch = await b.request("POST", "/v1/address-watch/addresses", { network_slug: "eth", address: V });
    expect(watch.status).toBe(201);
    for (let h = BLOCKS + 1; h <= BLOCKS + 4; h++) await ingest(td, block(h, [V]));
    const hook = await b.request("PUT", "/v1/address-watch/webhook", { url: sink.url, enabled: true, events: { block: false } });
    expect(hook.status).toBe(200);
    expect(await deliveriesOf(td, b.accountId)).toEqual([]);
    bIds = await listedIds(b);
    expect(bIds.length).toBe(8);
  });

  test("with no credits: 402 Insufficient credits., nothing queued", async () => {
    expect(await answer(await replay({ since: sec(t0) }, b))).toEqual({ status: 402, body: { error: "Insufficient credits." } });
    expect(await deliveriesOf(td, b.accountId)).toEqual([]);
  });

  test("credits for two: those two are queued with the cursor of the third; then, while they wait, 402", async () => {
    const added = await addCredits(td.ctx.db, td.ctx.clock, b.accountId, 2 * price + price / 2);
    expect(added.ok).toBe(true);
    // Payments 1 and 2 (listed 2nd and 4th); the cursor is block 3, before payment 3.
    expect(await answer(await replay({ since: sec(t0) }, b))).toEqual({ status: 202, body: { queued: 2, next_after: bIds[4] } });
    expect((await waiting(b)).map((d) => d.event_id)).toEqual([bIds[1], bIds[3]]);
    // The two waiting take all of the balance but half a price.
    expect(await answer(await replay({ after: bIds[4] }, b))).toEqual({ status: 402, body: { error: "Insufficient credits." } });
    expect((await waiting(b)).length).toBe(2);
  });
});
