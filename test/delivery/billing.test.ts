import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { addCredits } from "../../src/accounts/accounts.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import { type Engine, openEngine } from "./fixtures.ts";

let sink: WebhookSink;
let engine: Engine | undefined;

beforeEach(() => {
  sink = startWebhookSink();
});
afterEach(async () => {
  await engine?.close();
  engine = undefined;
  await sink.stop();
});

// Distinct prices, so every charge can be told apart.
const priced = {
  environment: "production",
  billing: { enabled: true, rates: { production: { address_activity: 7, payments: 11 } } },
  networks: { eth: { family: "evm", get_block_cost: 3 }, btc: { family: "btc", decimals: 8, get_block_cost: 5 } },
  // 10 s to answer: on a loaded machine a short timeout_ms turns a send that should succeed into a
  // timeout and a retry, and the charges below into something else.
  delivery: { backoff_seconds: [0], max_attempts: 3, timeout_ms: 10_000 },
};

const credits = async (e: Engine, id: string) =>
  Number((await e.ctx.db.selectFrom("accounts").select("credits").where("id", "=", id).executeTakeFirstOrThrow()).credits);
const usage = (e: Engine, id: string) =>
  e.ctx.db.selectFrom("usage_daily").select(["credits", "deliveries", "events"]).where("account_id", "=", id).execute();

describe("billing of deliveries (docs/webhooks.md)", () => {
  test("charges each kind its price on success, in the usage series too, and never charges a test", async () => {
    engine = await openEngine({ config: priced });
    const acct = await engine.account({ url: sink.url, credits: 1000 });
    const ids = {
      payment: await engine.queue(acct.id, { eventType: "payment" }),
      payout: await engine.queue(acct.id, { eventType: "payout" }),
      other: await engine.queue(acct.id, { eventType: "other" }),
      blockEth: await engine.queue(acct.id, { eventType: "block", network: "eth" }),
      blockBtc: await engine.queue(acct.id, { eventType: "block", network: "btc" }),
      order: await engine.queue(acct.id, { kind: "payment", eventType: "payment_order", paymentId: "pay_1", sequence: 1 }),
      test: await engine.queue(acct.id, { kind: "test", eventType: "payment" }),
      testOrder: await engine.queue(acct.id, { kind: "test", eventType: "payment_order" }),
    };
    await engine.run();

    const charged: Record<string, number> = {};
    for (const [k, id] of Object.entries(ids)) {
      const d = await engine.delivery(id);
      expect(d.status).toBe("succeeded");
      charged[k] = Number(d.credits_charged);
    }
    expect(charged).toEqual({ payment: 7, payout: 7, other: 7, blockEth: 3, blockBtc: 5, order: 11, test: 0, testOrder: 0 });
    expect(await credits(engine, acct.id)).toBe(1000 - 40);
    expect(await usage(engine, acct.id)).toEqual([{ credits: 40, deliveries: 6, events: 0 }]);
  });

  test("charges nothing when a delivery fails", async () => {
    engine = await openEngine({ config: priced });
    const acct = await engine.account({ url: sink.url, credits: 100 });
    sink.respond(() => new Response("no", { status: 500 }));
    const id = await engine.queue(acct.id);
    await engine.run();
    expect(await engine.delivery(id)).toMatchObject({ status: "failed", credits_charged: 0 });
    expect(await credits(engine, acct.id)).toBe(100);
    expect(await usage(engine, acct.id)).toEqual([]);
  });

  test("with billing disabled, deliveries are free but still counted", async () => {
    engine = await openEngine({ config: { ...priced, billing: { enabled: false } } });
    const acct = await engine.account({ url: sink.url, credits: 0 });
    const id = await engine.queue(acct.id, { eventType: "block" });
    await engine.run();
    expect(await engine.delivery(id)).toMatchObject({ status: "succeeded", credits_charged: 0 });
    expect(await credits(engine, acct.id)).toBe(0);
    expect(await usage(engine, acct.id)).toEqual([{ credits: 0, deliveries: 1, events: 0 }]);
  });

  test("a delivery the account cannot pay for is paused without an attempt, then sent once credits are added", async () => {
    engine = await openEngine({ config: priced });
    const acct = await engine.account({ url: sink.url, credits: 6 });
    const id = await engine.queue(acct.id, { eventType: "payment" });
    await engine.run();
    expect(sink.received.length).toBe(0);
    expect(await engine.delivery(id)).toMatchObject({ status: "paused", attempts: 0, lease_until: null });
    expect(await engine.attempts(id)).toEqual([]);
    expect(engine.metrics.render()).toContain("chainwatch_deliveries_paused_total 1");

    // Still paused on later passes: nothing is sent until credits arrive.
    await engine.run();
    expect(sink.received.length).toBe(0);

    await addCredits(engine.ctx.db, engine.ctx.clock, acct.id, 10);
    await engine.run();
    expect(sink.received.length).toBe(1);
    expect(await engine.delivery(id)).toMatchObject({ status: "succeeded", attempts: 1, credits_charged: 7 });
    expect(await credits(engine, acct.id)).toBe(9);
  });

  test("a test delivery goes out even with no credits at all", async () => {
    engine = await openEngine({ config: priced });
    const acct = await engine.account({ url: sink.url, credits: 0 });
    const id = await engine.queue(acct.id, { kind: "test", eventType: "block" });
    await engine.run();
    expect(await engine.delivery(id)).toMatchObject({ status: "succeeded", credits_charged: 0 });
    expect(sink.received[0].headers["x-webhook-test"]).toBe("true");
  });

  test("sends in flight never spend more credits than the account holds", async () => {
    engine = await openEngine({ config: priced });
    const acct = await engine.account({ url: sink.url, credits: 10 });
    sink.respond(async () => {
      await Bun.sleep(30);
      return new Response("ok");
    });
    const a = await engine.queue(acct.id, { eventType: "payment" });
    const b = await engine.queue(acct.id, { eventType: "payment" });
    await engine.run();
    expect(sink.received.length).toBe(1);
    expect([(await engine.delivery(a)).status, (await engine.delivery(b)).status]).toEqual(["succeeded", "paused"]);
    expect(await credits(engine, acct.id)).toBe(3);
  });
});
