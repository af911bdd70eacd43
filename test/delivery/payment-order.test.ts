import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import { type Engine, openEngine } from "./fixtures.ts";

let sink: WebhookSink;
let payments: WebhookSink;
let engine: Engine | undefined;

beforeEach(() => {
  sink = startWebhookSink();
  payments = startWebhookSink();
});
afterEach(async () => {
  await engine?.close();
  engine = undefined;
  await sink.stop();
  await payments.stop();
});

// 10 s to answer: on a loaded machine a short timeout_ms turns an answered send into a timeout and a
// second copy, and the exact sequences below into something else.
const config = { billing: { enabled: false }, delivery: { backoff_seconds: [0], max_attempts: 4, timeout_ms: 10_000 } };
const body = (paymentId: string, event: string) => JSON.stringify({ product: "payments", type: "payment_order", event, payment_id: paymentId });
const events = (s: WebhookSink) => s.received.map((r) => `${JSON.parse(r.body).payment_id}:${JSON.parse(r.body).event}`);

async function queueLifecycle(e: Engine, accountId: string, paymentId: string, states: string[]) {
  const ids: string[] = [];
  for (const [i, state] of states.entries())
    ids.push(await e.queue(accountId, { kind: "payment", eventType: "payment_order", paymentId, sequence: i + 1, body: body(paymentId, state) }));
  return ids;
}

describe("payment-order webhooks (docs/webhooks.md, docs/payments.md)", () => {
  test("go out strictly in lifecycle order even when the first fails twice", async () => {
    engine = await openEngine({ config });
    const acct = await engine.account({ paymentsUrl: payments.url });
    let seenFailures = 0;
    payments.respond((req, i) => {
      const event = JSON.parse(payments.received[i].body).event;
      if (event === "seen" && seenFailures < 2) {
        seenFailures++;
        return new Response("later", { status: 500 });
      }
      return new Response("ok");
    });
    const ids = await queueLifecycle(engine, acct.id, "pay_a", ["seen", "aml_check", "paid"]);
    await engine.run();

    expect(events(payments)).toEqual(["pay_a:seen", "pay_a:seen", "pay_a:seen", "pay_a:aml_check", "pay_a:paid"]);
    for (const id of ids) expect((await engine.delivery(id)).status).toBe("succeeded");
  });

  test("a later webhook waits while an earlier one is waiting out its backoff", async () => {
    engine = await openEngine({ config: { ...config, delivery: { ...config.delivery, backoff_seconds: [3600] } } });
    const acct = await engine.account({ paymentsUrl: payments.url });
    payments.respond(() => new Response("down", { status: 503 }));
    const [seen, amlCheck] = await queueLifecycle(engine, acct.id, "pay_b", ["seen", "aml_check"]);
    await engine.run();
    expect(events(payments)).toEqual(["pay_b:seen"]);
    expect(await engine.delivery(seen)).toMatchObject({ status: "pending", attempts: 1 });
    expect(await engine.delivery(amlCheck)).toMatchObject({ status: "pending", attempts: 0 });
  });

  test("a later webhook goes out once the earlier one has finally failed", async () => {
    engine = await openEngine({ config: { ...config, delivery: { ...config.delivery, max_attempts: 2 } } });
    const acct = await engine.account({ paymentsUrl: payments.url });
    payments.respond((_req, i) => new Response("", { status: JSON.parse(payments.received[i].body).event === "seen" ? 500 : 200 }));
    const [seen, paid] = await queueLifecycle(engine, acct.id, "pay_c", ["seen", "paid"]);
    await engine.run();
    expect(events(payments)).toEqual(["pay_c:seen", "pay_c:seen", "pay_c:paid"]);
    expect((await engine.delivery(seen)).status).toBe("failed");
    expect((await engine.delivery(paid)).status).toBe("succeeded");
  });

  test("orders do not hold each other up", async () => {
    engine = await openEngine({ config: { ...config, delivery: { ...config.delivery, backoff_seconds: [3600] } } });
    const acct = await engine.account({ paymentsUrl: payments.url });
    payments.respond((_req, i) => new Response("", { status: JSON.parse(payments.received[i].body).payment_id === "pay_stuck" ? 500 : 200 }));
    await queueLifecycle(engine, acct.id, "pay_stuck", ["seen", "paid"]);
    await queueLifecycle(engine, acct.id, "pay_free", ["seen", "paid"]);
    await engine.run();
    expect(events(payments).sort()).toEqual(["pay_free:paid", "pay_free:seen", "pay_stuck:seen"]);
  });

  test("go to the payments webhook URL when set, else to the enabled address-watch webhook", async () => {
    engine = await openEngine({ config });
    const both = await engine.account({ url: sink.url, paymentsUrl: payments.url });
    const watchOnly = await engine.account({ url: sink.url });
    await queueLifecycle(engine, both.id, "pay_d", ["seen"]);
    await queueLifecycle(engine, watchOnly.id, "pay_e", ["seen"]);
    await engine.run();
    expect(events(payments)).toEqual(["pay_d:seen"]);
    expect(events(sink)).toEqual(["pay_e:seen"]);
  });
});
