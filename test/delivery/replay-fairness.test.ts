import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { claimDueDeliveries } from "../../src/delivery/claim.ts";
import { type EnqueueInput, enqueueDeliveries } from "../../src/delivery/outbox.ts";
import { manualClock } from "../support/clock.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import { type Engine, openEngine } from "./fixtures.ts";
import { defaultEndpointId } from "../support/endpoints.ts";

// docs/webhooks.md: replayed deliveries are claimed only in the room live ones leave, so one
// account's replay backlog never holds up another account's live webhooks. Proved by order and
// counts: which rows a claim takes, and in which order the receiver gets them.

const REPLAYED = 3_000;

const clock = manualClock();
let engine: Engine;
let sink: WebhookSink;

beforeEach(async () => {
  sink = startWebhookSink();
  engine = await openEngine({ clock, config: { delivery: { concurrency: 4 }, billing: { enabled: false } } });
});
afterEach(async () => {
  await engine.close();
  await sink.stop();
});

/**
 * Queues `count` replayed deliveries of the account as an events replay does (replay-events.ts): due
 * one millisecond apart, the newest due now, so the oldest of them were due before rows queued
 * in the last few seconds.
 */
async function replayBacklog(accountId: string, count: number): Promise<void> {
  const nowMs = clock.now();
  const endpointId = await defaultEndpointId(engine.ctx.db, accountId);
  const inputs: EnqueueInput[] = Array.from({ length: count }, (_, n) => ({
    accountId,
    endpointId,
    kind: "event",
    eventType: "payment",
    network: "eth",
    body: JSON.stringify({ replayed: n }),
    nowMs,
    replay: true,
    dueAt: nowMs - (count - 1 - n),
  }));
  await engine.ctx.db.transaction().execute((trx) => enqueueDeliveries(trx, inputs));
}

describe("a replay backlog and another account's live webhook", () => {
  test("the next claim takes the live webhook first, though thousands of replayed rows were due before it", async () => {
    const replaying = await engine.account({ url: sink.url });
    const other = await engine.account({ url: sink.url });
    const live = await engine.queue(other.id);
    // The replay comes a second later: its oldest 2,000 rows are due before the live one.
    clock.advance(1_000);
    await replayBacklog(replaying.id, REPLAYED);

    const claim = await claimDueDeliveries(engine.ctx.db, { nowMs: clock.now(), leaseMs: 60_000, limit: 64, priceOf: () => 0 });
    expect(claim.claimed.length).toBe(64);
    expect(claim.claimed[0].id).toBe(live);
    expect(claim.claimed.slice(1).every((d) => d.account_id === replaying.id && d.replay === 1)).toBe(true);
  });

  test("the receiver gets the live webhook among the first it is sent, and the whole replay after it, each once", async () => {
    const replaying = await engine.account({ url: sink.url });
    const other = await engine.account({ url: sink.url });
    const live = await engine.queue(other.id, { body: JSON.stringify({ live: true }) });
    clock.advance(1_000);
    await replayBacklog(replaying.id, REPLAYED);

    await engine.run();
    const order = sink.received.map((r) => r.headers["webhook-id"]);
    expect(order.length).toBe(REPLAYED + 1);
    // The first pass claims it in its first batch: at most that batch (2 × concurrency) goes before it.
    expect(order.indexOf(live)).toBeLessThan(8);
    const replayed = sink.received.filter((r) => r.headers["x-webhook-replay"] === "true").map((r) => (JSON.parse(r.body) as { replayed: number }).replayed);
    expect(new Set(replayed).size).toBe(REPLAYED);
  });
});
