import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createCreditReservations } from "../../src/delivery/reservations.ts";
import { silentLogger } from "../../src/lib/log.ts";
import { type AccountMeter, type CreditMeter, createCreditMeter } from "../../src/rpc/credit-meter.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import { type Engine, openEngine } from "./fixtures.ts";

// Webhook deliveries and /rpc calls spend one credit pool (docs/webhooks.md, docs/rpc.md): neither may
// spend what the other has set aside or promised. The delivery loop and /rpc's meter share the
// promises of deliveries in flight, as the daemon wires them.
let sink: WebhookSink;
let engine: Engine | undefined;
let meter: CreditMeter;

const priced = {
  environment: "production",
  billing: { enabled: true, rates: { production: { address_activity: 7, payments: 11 } } },
  delivery: { backoff_seconds: [0], max_attempts: 3 },
};

beforeEach(async () => {
  sink = startWebhookSink();
  const reservations = createCreditReservations();
  engine = await openEngine({ config: priced, reservations });
  meter = createCreditMeter({
    db: engine.ctx.db,
    clock: engine.ctx.clock,
    log: silentLogger,
    flushIntervalSeconds: 1,
    slice: 100,
    holder: "this daemon",
    promised: (accountId) => reservations.byAccount.get(accountId) ?? 0,
  });
});
afterEach(async () => {
  await engine?.close();
  engine = undefined;
  await sink.stop();
});

/** The meter's record of an account these tests expect it to read. */
async function opened(meter: CreditMeter, accountId: string): Promise<AccountMeter> {
  const a = await meter.account(accountId);
  if (!a.ok) throw new Error(`account ${accountId}: ${a.code}`);
  return a;
}

const credits = async (id: string) =>
  Number((await (engine as Engine).ctx.db.selectFrom("accounts").select("credits").where("id", "=", id).executeTakeFirstOrThrow()).credits);

describe("webhook deliveries and /rpc share the credit pool without counting a credit twice", () => {
  test("credits /rpc has set aside are not promised to a webhook, which is paused once /rpc has spent them", async () => {
    const e = engine as Engine;
    const acct = await e.account({ url: sink.url, credits: 10 });
    const a = await opened(meter, acct.id);
    expect(await meter.reserve(a, 10)).toBe(true); // a call in flight holds all 10
    const id = await e.queue(acct.id, { eventType: "payment" }); // costs 7
    await e.run();
    expect(sink.received.length).toBe(0);
    expect(await e.delivery(id)).toMatchObject({ status: "pending", attempts: 0, lease_until: null });
    meter.settle(a, 10, 10, 1);
    await meter.flush();
    await e.run();
    expect(sink.received.length).toBe(0);
    expect(await e.delivery(id)).toMatchObject({ status: "paused", attempts: 0 });
    expect(await credits(acct.id)).toBe(0);
  });

  test("credits given back by /rpc unused go to the waiting webhook", async () => {
    const e = engine as Engine;
    const acct = await e.account({ url: sink.url, credits: 10 });
    const a = await opened(meter, acct.id);
    expect(await meter.reserve(a, 1)).toBe(true);
    const id = await e.queue(acct.id, { eventType: "payment" });
    await e.run();
    expect(await e.delivery(id)).toMatchObject({ status: "pending", attempts: 0 });
    meter.settle(a, 1, 1, 1);
    await meter.flush(); // charged 1; 9 stay set aside while the account is in use
    await meter.flush(); // idle since: the 9 go back
    await e.run();
    expect(await e.delivery(id)).toMatchObject({ status: "succeeded", credits_charged: 7 });
    expect(await credits(acct.id)).toBe(2);
  });

  test("credits promised to a webhook in flight are not set aside for /rpc", async () => {
    const e = engine as Engine;
    const acct = await e.account({ url: sink.url, credits: 10 });
    let answer: () => void = () => {};
    sink.respond(() => new Promise<Response>((resolve) => (answer = () => resolve(new Response("ok")))));
    const id = await e.queue(acct.id, { eventType: "payment" }); // 7, promised while the receiver holds the request
    e.loop.wake();
    await sink.waitFor(1);
    const a = await opened(meter, acct.id);
    expect(meter.reserve(a, 4)).toBe(false); // 10 less 7 promised: 3 free
    expect(await meter.reserve(a, 3)).toBe(true);
    answer();
    await e.loop.idle();
    expect(await e.delivery(id)).toMatchObject({ status: "succeeded", credits_charged: 7 });
    meter.settle(a, 3, 3, 1);
    await meter.flush();
    expect(await credits(acct.id)).toBe(0);
  });
});
