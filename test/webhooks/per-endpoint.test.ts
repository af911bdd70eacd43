import { afterEach, describe, expect, test } from "bun:test";
import { claimDueDeliveries } from "../../src/delivery/claim.ts";
import { deliveriesWithBodies, enqueueDelivery, retractEventDeliveries } from "../../src/delivery/outbox.ts";
import { createDeliveryThrottle } from "../../src/delivery/throttle.ts";
import { paymentOrderTargets } from "../../src/webhooks/fan-out.ts";
import { createEndpoint } from "../../src/webhooks/manage-endpoints.ts";
import { manualClock } from "../support/clock.ts";
import { setDefaultEndpoint } from "../support/endpoints.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import { type Engine, openEngine } from "../delivery/fixtures.ts";

// What is per endpoint (docs/webhooks.md, fan-out): the order of one payment order's webhooks, the
// delivery rate limit, where payment orders go, a reorg's retractions, and the price of each delivery.

let engine: Engine | undefined;
const sinks: WebhookSink[] = [];
afterEach(async () => {
  await engine?.close();
  engine = undefined;
  for (const s of sinks.splice(0)) await s.stop();
});

const sink = () => {
  const s = startWebhookSink();
  sinks.push(s);
  return s;
};

/** Adds an endpoint to the account through the endpoints API's use case; returns its id. */
async function addEndpoint(e: Engine, accountId: string, body: Record<string, unknown>): Promise<string> {
  const made = await createEndpoint({ ...e.ctx, resolveHost: async () => ["127.0.0.1"] }, accountId, body);
  if (!made.ok) throw new Error(JSON.stringify(made));
  return made.endpoint.endpoint_id;
}

const orderEvents = (s: WebhookSink) => s.received.map((r) => JSON.parse(r.body).event as string);

describe("one payment order's webhooks, in lifecycle order per endpoint", () => {
  test("an endpoint waiting out a retry holds up only its own copies: the other gets seen, aml_check, paid at once and in order", async () => {
    engine = await openEngine({ config: { billing: { enabled: false }, delivery: { backoff_seconds: [3600], max_attempts: 3, timeout_ms: 10_000 } } });
    const down = sink();
    down.respond(() => new Response("no", { status: 500 }));
    const up = sink();
    const acct = await engine.account({ url: down.url });
    const upId = await addEndpoint(engine, acct.id, { url: up.url });
    for (const [i, event] of ["seen", "aml_check", "paid"].entries()) {
      const body = JSON.stringify({ type: "payment_order", event, payment_id: "pay_1" });
      await engine.queue(acct.id, { kind: "payment", eventType: "payment_order", paymentId: "pay_1", sequence: i + 1, body });
    }
    await engine.run();
    // The loop is idle: the failing endpoint's `seen` waits an hour for its retry, its later states behind it.
    expect(orderEvents(up)).toEqual(["seen", "aml_check", "paid"]);
    expect(orderEvents(down)).toEqual(["seen"]);
    const rows = await engine.ctx.db.selectFrom("deliveries").select(["endpoint_id", "sequence", "status", "attempts"]).orderBy("sequence").execute();
    expect(rows.filter((r) => r.endpoint_id === upId).map((r) => [r.sequence, r.status])).toEqual([
      [1, "succeeded"],
      [2, "succeeded"],
      [3, "succeeded"],
    ]);
    expect(rows.filter((r) => r.endpoint_id === acct.endpointId).map((r) => [r.sequence, r.status, r.attempts])).toEqual([
      [1, "pending", 1],
      [2, "pending", 0],
      [3, "pending", 0],
    ]);
  });
});

describe("the delivery rate limit, per endpoint", () => {
  test("an endpoint's limit paces its own rows only: another endpoint of the same account takes all of its own at once", async () => {
    const clock = manualClock(Date.UTC(2026, 10, 21, 12, 0, 0));
    engine = await openEngine({ clock, config: { billing: { enabled: false } } });
    const acct = await engine.account({ url: "http://127.0.0.1:9/slow" });
    await setDefaultEndpoint(engine.ctx.db, acct.id, { maxRps: 1 });
    const fastId = await addEndpoint(engine, acct.id, { url: "http://127.0.0.1:9/fast" });
    const queue = (endpointId: string) =>
      enqueueDelivery(engine!.ctx.db, { accountId: acct.id, endpointId, kind: "event", eventType: "payment", network: "eth", body: "{}", nowMs: clock.now() });
    for (let i = 0; i < 5; i++) {
      await queue(acct.endpointId);
      await queue(fastId);
    }
    const throttle = createDeliveryThrottle({ budget: null });
    const claim = await claimDueDeliveries(engine.ctx.db, { nowMs: clock.now(), leaseMs: 60_000, limit: 64, priceOf: () => 0, throttle, defaultMaxRps: 0 });
    const count = (endpointId: string) => claim.claimed.filter((d) => d.endpoint_id === endpointId).length;
    expect([count(fastId), count(acct.endpointId)]).toEqual([5, 1]);
    // The slow endpoint's other four wait for their slots, a second apart.
    const waiting = await engine.ctx.db
      .selectFrom("deliveries")
      .select("next_attempt_at")
      .where("endpoint_id", "=", acct.endpointId)
      .where("lease_until", "is not", null)
      .orderBy("next_attempt_at")
      .execute();
    expect(waiting.map((r) => Number(r.next_attempt_at) - clock.now()).filter((ms) => ms > 0)).toEqual([1000, 2000, 3000, 4000]);
  });
});

describe("where a payment order's webhooks go", () => {
  test("to the payments URL when set; else to every enabled endpoint with payment_order on; else once, for the payments URL", async () => {
    engine = await openEngine({ config: { billing: { enabled: false } } });
    const acct = await engine.account({ url: "http://127.0.0.1:9/a" });
    const takes = await addEndpoint(engine, acct.id, { url: "http://127.0.0.1:9/b" });
    await addEndpoint(engine, acct.id, { url: "http://127.0.0.1:9/c", events: { payment_order: false } });
    await addEndpoint(engine, acct.id, { url: "http://127.0.0.1:9/d", enabled: false });
    const db = engine.ctx.db;
    expect(await paymentOrderTargets(db, acct.id, true)).toEqual([null]);
    expect(await paymentOrderTargets(db, acct.id, false)).toEqual([acct.endpointId, takes]);
    await setDefaultEndpoint(db, acct.id, { enabled: false });
    expect(await paymentOrderTargets(db, acct.id, false)).toEqual([takes]);
    await db.updateTable("webhook_endpoints").set({ enabled: 0 }).where("id", "=", takes).execute();
    expect(await paymentOrderTargets(db, acct.id, false)).toEqual([null]);
  });
});

describe("a reorg's retraction", () => {
  test("goes to every endpoint the event went to, one new delivery each", async () => {
    engine = await openEngine({ config: { billing: { enabled: false } } });
    const acct = await engine.account({ url: "http://127.0.0.1:9/a" });
    const other = await addEndpoint(engine, acct.id, { url: "http://127.0.0.1:9/b" });
    const db = engine.ctx.db;
    for (const endpointId of [acct.endpointId, other])
      await enqueueDelivery(db, { accountId: acct.id, endpointId, kind: "event", eventType: "payment", network: "eth", eventId: "evt_1", body: '{"removed":false}', nowMs: 1 });
    const retracted = await retractEventDeliveries(db, { id: "evt_1", type: "payment", network: "eth", body: '{"removed":true}' }, 2);
    expect(retracted).toEqual({ deliveries: 2, dropped: 0 });
    const removals = await deliveriesWithBodies(db).where("body", "=", '{"removed":true}').orderBy("endpoint_id").execute();
    expect(removals.map((r) => r.endpoint_id)).toEqual([acct.endpointId, other].sort());
  });
});

describe("each delivery costs what a delivery costs", () => {
  test("an event sent to two endpoints is charged twice and counted as two deliveries", async () => {
    engine = await openEngine({
      config: { environment: "production", billing: { enabled: true, rates: { production: { address_activity: 7, payments: 11 } } }, delivery: { timeout_ms: 10_000 } },
    });
    const a = sink();
    const b = sink();
    const acct = await engine.account({ url: a.url, credits: 100 });
    const other = await addEndpoint(engine, acct.id, { url: b.url });
    for (const endpointId of [acct.endpointId, other])
      await enqueueDelivery(engine.ctx.db, { accountId: acct.id, endpointId, kind: "event", eventType: "payment", network: "eth", body: "{}", nowMs: engine.ctx.clock.now() });
    await engine.run();
    expect([a.received.length, b.received.length]).toEqual([1, 1]);
    const row = await engine.ctx.db.selectFrom("accounts").select("credits").where("id", "=", acct.id).executeTakeFirstOrThrow();
    expect(Number(row.credits)).toBe(86);
    const usage = await engine.ctx.db.selectFrom("usage_daily").select(["credits", "deliveries"]).where("account_id", "=", acct.id).execute();
    expect(usage).toEqual([{ credits: 14, deliveries: 2 }]);
  });
});
