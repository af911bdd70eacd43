import { afterEach, describe, expect, it } from "bun:test";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import { createOrder, readOrder, setPaymentWebhook } from "../payments/support.ts";
import { chain, ingest, pay, type Rig, settled, startRig } from "./reorg-support.ts";

// Payment orders count canonical blocks only (docs/reference.md §8). eth: 3 confirmations, so a payment in
// block n confirms when block n+2 is the tip; max_reorg_depth 3.

const P = "0x3333333333333333333333333333333333333333";
const ONE = "1000000000000000000";

let rig: Rig;
let payments: WebhookSink;
afterEach(async () => {
  await payments.stop();
  await rig.stop();
});

async function orderRig() {
  rig = await startRig();
  payments = startWebhookSink();
  await setPaymentWebhook(rig.client, payments.url);
  return createOrder(rig.client, { order_id: `o-${crypto.randomUUID()}`, network: "eth", address: P, amount: "1" });
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
    const seen = await readOrder(rig.client, order.payment_id);
    expect([seen.status, seen.amount_received]).toEqual(["seen", "0"]);
    expect(lifecycle(await settled(rig, payments, "payment"))).toEqual([["seen", "1", "0xt1"]]);

    // A real payment in b7 confirms at b9 and pays the order: one amount, not two.
    await ingest(rig.td, chain("0xb", 7, 9, "0xb6", { 7: [pay("0xt2", ONE, P)] }));
    await payments.waitFor(3);
    expect(lifecycle(await settled(rig, payments, "payment"))).toEqual([
      ["seen", "1", "0xt1"],
      ["aml_check", "1", "0xt2"],
      ["paid", "1", "0xt2"],
    ]);
  });

  it("counts a payment mined again in the new chain once", async () => {
    const order = await orderRig();
    await ingest(rig.td, chain("0xa", 1, 3, "0xa0", { 3: [pay("0xt1", ONE, P)] }));
    // The same transaction lands in b4 instead; b6 gives it 3 confirmations.
    await ingest(rig.td, chain("0xb", 3, 6, "0xa2", { 4: [pay("0xt1", ONE, P)] }));
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
