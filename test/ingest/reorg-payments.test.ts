import { afterEach, describe, expect, it } from "bun:test";
import type { Clock } from "../../src/lib/clock.ts";
import { manualClock } from "../support/clock.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import { createOrder, readOrder, setPaymentWebhook } from "../payments/support.ts";
import { blk, chain, ingest, pay, type Rig, settled, startRig } from "./reorg-support.ts";

// Payment orders count canonical blocks only (docs/chains.md). eth: 3 confirmations, so a payment in
// block n confirms when block n+2 is the tip; max_reorg_depth 3.

const P = "0x3333333333333333333333333333333333333333";
const ONE = "1000000000000000000";

let rig: Rig;
let payments: WebhookSink;
afterEach(async () => {
  await payments.stop();
  await rig.stop();
});

async function orderRig(opts: { clock?: Clock; expiresInSeconds?: number } = {}) {
  rig = await startRig({ clock: opts.clock });
  payments = startWebhookSink();
  await setPaymentWebhook(rig.client, payments.url);
  return createOrder(rig.client, { order_id: `o-${crypto.randomUUID()}`, network: "eth", address: P, amount: "1", expires_in_seconds: opts.expiresInSeconds });
}

/** The order as GET /v1/payments/{id} shows it: [status, amount_received, amount_received_raw, tx_hash]. */
async function orderState(paymentId: string) {
  const o = await readOrder(rig.client, paymentId);
  return [o.status, o.amount_received, o.amount_received_raw, o.tx_hash];
}

/** The payment webhooks received: [event, amount_received, tx_hash]. */
const lifecycle = (bodies: string[]) => bodies.map((b) => JSON.parse(b)).map((b) => [b.event, b.amount_received, b.tx_hash]);

describe("payment orders across reorgs", () => {
  it("stops counting a payment whose block was orphaned, with no extra webhook, and is paid by the new chain's payment", async () => {
    const order = await orderRig();
    await ingest(rig.td, chain("0xa", 1, 3, "0xa0", { 3: [pay("0xt1", ONE, P)] }));
    expect(lifecycle(await settled(rig, payments, "payment"))).toEqual([["seen", "1", "0xt1"]]);

    // a3 is orphaned before its payment had 3 confirmations; the new chain does not carry it.
    const res = await ingest(rig.td, chain("0xb", 3, 6, "0xa2"));
    expect(res.status).toBe(202);
    expect(await orderState(order.payment_id)).toEqual(["pending", "0", "0", null]);
    expect(lifecycle(await settled(rig, payments, "payment"))).toEqual([["seen", "1", "0xt1"]]);

    // A real payment in b7 confirms at b9 and pays the order: one amount, not two, and no second
    // `seen` — the order announced it already.
    await ingest(rig.td, chain("0xb", 7, 9, "0xb6", { 7: [pay("0xt2", ONE, P)] }));
    await payments.waitFor(3);
    expect(lifecycle(await settled(rig, payments, "payment"))).toEqual([
      ["seen", "1", "0xt1"],
      ["aml_check", "1", "0xt2"],
      ["paid", "1", "0xt2"],
    ]);
  });

  it("returns an order whose only payment was orphaned to pending, silently: it expires on time and frees the address", async () => {
    const clock = manualClock();
    const order = await orderRig({ clock, expiresInSeconds: 60 });
    await ingest(rig.td, chain("0xa", 1, 3, "0xa0", { 3: [pay("0xt1", ONE, P)] }));
    expect(lifecycle(await settled(rig, payments, "payment"))).toEqual([["seen", "1", "0xt1"]]);

    // A sibling of a3 at the same height orphans it; the payment is in no canonical block now.
    expect((await ingest(rig.td, blk(3, "0xb3", "0xa2"))).status).toBe(202);
    expect(await orderState(order.payment_id)).toEqual(["pending", "0", "0", null]);
    const other = await rig.td.client({ credits: 1_000_000 });
    const busy = await other.request("POST", "/v1/payments", { order_id: "o-next", network: "eth", address: P, amount: "1" });
    expect(busy.status).toBe(409);
    expect(await busy.json()).toEqual({ error: "Address already has an active order." });

    // Nothing in flight before the jump, so no lease runs out under a send.
    await settled(rig);
    expect(lifecycle(await settled(rig, payments, "payment"))).toEqual([["seen", "1", "0xt1"]]);
    clock.advance(61_000);
    await payments.waitFor(2);
    expect(lifecycle(await settled(rig, payments, "payment"))).toEqual([
      ["seen", "1", "0xt1"],
      ["expired", "0", null],
    ]);
    expect(await orderState(order.payment_id)).toEqual(["expired", "0", "0", null]);
    const next = await other.request("POST", "/v1/payments", { order_id: "o-next", network: "eth", address: P, amount: "1" });
    expect(next.status).toBe(201);
    expect(((await next.json()) as Record<string, unknown>).status).toBe("pending");
  });

  it("keeps counting the payment that stays canonical when another one is orphaned", async () => {
    const order = await orderRig();
    await ingest(rig.td, chain("0xa", 1, 3, "0xa0", { 2: [pay("0xt1", "400000000000000000", P)], 3: [pay("0xt2", "300000000000000000", P)] }));
    await payments.waitFor(1);
    expect(await orderState(order.payment_id)).toEqual(["seen", "0.7", "700000000000000000", "0xt1"]);
    // c3 replaces a3 and does not carry t2; t1 in a2 still counts.
    expect((await ingest(rig.td, blk(3, "0xc3", "0xa2"))).status).toBe(202);
    expect(await orderState(order.payment_id)).toEqual(["seen", "0.4", "400000000000000000", "0xt1"]);
    expect(lifecycle(await settled(rig, payments, "payment"))).toEqual([["seen", "0.4", "0xt1"]]);
  });

  it("counts a payment mined again in the new chain once", async () => {
    const order = await orderRig();
    expect((await ingest(rig.td, chain("0xa", 1, 3, "0xa0", { 3: [pay("0xt1", ONE, P)] }))).status).toBe(202);
    // The same transaction lands in b4 instead; b6 gives it 3 confirmations. The `seen` webhook may
    // still be settling meanwhile: on PostgreSQL its charge and this batch once deadlocked.
    expect((await ingest(rig.td, chain("0xb", 3, 6, "0xa2", { 4: [pay("0xt1", ONE, P)] }))).status).toBe(202);
    await payments.waitFor(3);
    expect(lifecycle(await settled(rig, payments, "payment"))).toEqual([
      ["seen", "1", "0xt1"],
      ["aml_check", "1", "0xt1"],
      ["paid", "1", "0xt1"],
    ]);
    expect((await readOrder(rig.client, order.payment_id)).amount_received).toBe("1");
  });

  it("never moves a paid order back when a reorg orphans the payment that paid it", async () => {
    const order = await orderRig();
    await ingest(rig.td, chain("0xa", 1, 5, "0xa0", { 3: [pay("0xt1", ONE, P)] }));
    await payments.waitFor(3);
    expect((await ingest(rig.td, chain("0xb", 3, 6, "0xa2"))).status).toBe(202);
    const after = await readOrder(rig.client, order.payment_id);
    expect([after.status, after.amount_received, after.tx_hash]).toEqual(["paid", "1", "0xt1"]);
    expect(lifecycle(await settled(rig, payments, "payment")).map((l) => l[0])).toEqual(["seen", "aml_check", "paid"]);
  });
});
