import { afterEach, describe, expect, test } from "bun:test";
import { rfc3339 } from "../../../src/lib/time.ts";
import { manualClock } from "../../support/clock.ts";
import { startTestDaemon, type TestClient, type TestDaemon } from "../../support/harness.ts";
import { startWebhookSink, type WebhookSink } from "../../support/webhook-sink.ts";
import { chain, ingest, pay } from "../../ingest/reorg-support.ts";
import { createOrder, readOrder, setPaymentWebhook, WEBHOOK_KEYS } from "../support.ts";
import { accountXpub, viemAddress } from "./vectors.ts";

// Late payments and the gap limit through the real ingest endpoint, delivery loop and receiver
// (docs/payments.md). eth needs 2 confirmations: a payment in block n confirms when n+1 arrives;
// max_reorg_depth 6.

const ONE = "1000000000000000000";
const HALF = "500000000000000000";

type Body = Record<string, any>;

let td: TestDaemon;
let c: TestClient;
let sink: WebhookSink;
const clock = manualClock();

afterEach(async () => {
  await sink.stop();
  await td.stop();
});

/** A daemon, an account whose payment webhooks go to a receiver, and its wallet on eth (the test phrase's account `k`). */
async function start(k: number, gapLimit?: number) {
  td = await startTestDaemon({ clock, config: { rate_limit: { per_key_rps: 1000 }, networks: { eth: { family: "evm", decimals: 18, confirmations: 2, max_reorg_depth: 6 } } } });
  c = await td.client({ credits: 1_000_000 });
  sink = startWebhookSink();
  await setPaymentWebhook(c, sink.url);
  const res = await c.request("PUT", "/v1/payments/wallets/eth", { key: accountXpub(`m/44'/60'/${k}'`), ...(gapLimit ? { gap_limit: gapLimit } : {}) });
  expect(res.status).toBe(200);
}

/**
 * Waits until every payment webhook queued so far succeeded and the receiver has them all; returns
 * their bodies in the order they arrived. Once this holds nothing more is queued.
 */
async function settled(): Promise<Body[]> {
  const outstanding = () => td.ctx.db.selectFrom("deliveries").select("status").where("kind", "=", "payment").execute();
  for (;;) {
    await sink.waitFor((await outstanding()).length);
    const rows = await outstanding();
    if (rows.every((d) => d.status === "succeeded") && rows.length === sink.received.length) break;
    await Bun.sleep(5);
  }
  return sink.received.map((r) => JSON.parse(r.body));
}

const events = async () => (await settled()).map((b) => [b.event, b.removed ?? null]);

describe("late payments to a wallet's address", () => {
  test("an expired order paid after expiry: listed at once, announced once at its confirmations, retracted when a reorg orphans its block", async () => {
    await start(10);
    const order = await createOrder(c, { order_id: "late-1", network: "eth", amount: "1", expires_in_seconds: 60 });
    expect(order.address).toBe(viemAddress(0, 10));
    expect((await ingest(td, chain("0xa", 1, 2, "0xa0"))).status).toBe(202);
    clock.advance(61_000);
    await sink.waitFor(1);
    expect(await events()).toEqual([["expired", null]]);

    // Paid in a3: recorded on the order at once, announced once a4 gives it 2 confirmations.
    await ingest(td, chain("0xa", 3, 3, "0xa2", { 3: [pay("0xt1", ONE, order.address)] }));
    const late = { tx_hash: "0xt1", amount: "1", amount_raw: ONE, block_height: 3 };
    expect(await readOrder(c, order.payment_id)).toMatchObject({ status: "expired", amount_received: "0", late_payments: [late] });
    expect(await events()).toEqual([["expired", null]]);
    await ingest(td, chain("0xa", 4, 4, "0xa3"));
    await sink.waitFor(2);
    const [expired, announced] = await settled();
    expect(Object.keys(announced)).toEqual([...WEBHOOK_KEYS, "late_payment", "removed"]);
    expect(announced).toEqual({ ...expired, event: "late_payment", late_payment: late, removed: false });
    // The same blocks again add nothing.
    await ingest(td, chain("0xa", 3, 4, "0xa2", { 3: [pay("0xt1", ONE, order.address)] }));
    expect(await events()).toEqual([["expired", null], ["late_payment", false]]);

    // b3…b5 replace a3 and a4: the payment is in no canonical block any more.
    expect((await ingest(td, chain("0xb", 3, 5, "0xa2"))).status).toBe(202);
    await sink.waitFor(3);
    const bodies = await settled();
    expect(bodies[2]).toEqual({ ...announced, removed: true });
    expect(await readOrder(c, order.payment_id)).toMatchObject({ status: "expired", late_payments: [] });
    expect(bodies.map((b) => b.event)).toEqual(["expired", "late_payment", "late_payment"]);
  });

  test("a paid order paid twice: the second payment is late, never counted, announced after paid", async () => {
    await start(11);
    const order = await createOrder(c, { order_id: "twice-1", network: "eth", amount: "1" });
    await ingest(td, chain("0xa", 1, 2, "0xa0", { 1: [pay("0xt1", ONE, order.address)] }));
    await sink.waitFor(3);
    expect(await events()).toEqual([["seen", null], ["aml_check", null], ["paid", null]]);
    await ingest(td, chain("0xa", 3, 4, "0xa2", { 3: [pay("0xt2", HALF, order.address)] }));
    await sink.waitFor(4);
    const bodies = await settled();
    expect(bodies.map((b) => b.event)).toEqual(["seen", "aml_check", "paid", "late_payment"]);
    expect(bodies[3]).toMatchObject({ status: "paid", lifecycle: "paid", tx_hash: "0xt1", amount_received: "1", aml: null, removed: false, late_payment: { tx_hash: "0xt2", amount: "0.5", amount_raw: HALF, block_height: 3 } });
    expect(await readOrder(c, order.payment_id)).toMatchObject({ status: "paid", amount_received: "1", late_payments: [{ tx_hash: "0xt2", amount: "0.5", amount_raw: HALF, block_height: 3 }] });
  });

  test("an address the client gave is not watched after its order ends: nothing listed, nothing announced", async () => {
    await start(12);
    const address = "0x4444444444444444444444444444444444444444";
    const order = await createOrder(c, { order_id: "given-1", network: "eth", address, amount: "1", expires_in_seconds: 60 });
    expect(order.derivation_index).toBeNull();
    clock.advance(61_000);
    await sink.waitFor(1);
    await ingest(td, chain("0xa", 1, 3, "0xa0", { 1: [pay("0xt1", ONE, address)] }));
    expect(await readOrder(c, order.payment_id)).toMatchObject({ status: "expired", late_payments: [] });
    expect(await events()).toEqual([["expired", null]]);
  });
});

describe("the gap limit", () => {
  const notices = async () => ((await (await c.request("GET", "/v1/account/notices")).json()) as { notices: Body[] }).notices;
  const wallet = async () => ((await (await c.request("GET", "/v1/payments/wallets")).json()) as { wallets: Body[] }).wallets[0];

  test("a wallet_gap notice when the unused tail passes gap_limit, again as it doubles, and afresh after a payment; orders are never refused", async () => {
    await start(13, 2);
    const made: Body[] = [];
    const tails: number[] = [];
    const counts: number[] = [];
    const make = async (n: number) => {
      for (let i = 0; i < n; i++) {
        made.push(await createOrder(c, { order_id: `gap-${made.length}`, network: "eth", amount: "1" }));
        tails.push((await wallet()).unused_tail);
        counts.push((await notices()).length);
      }
    };
    await make(6);
    expect(tails).toEqual([1, 2, 3, 4, 5, 6]);
    // Past 2 at 3, doubled at 6.
    expect(counts).toEqual([0, 0, 1, 1, 1, 2]);
    const [latest, first] = await notices();
    expect(first).toEqual({
      id: expect.stringMatching(/^ntc_/),
      type: "wallet_gap",
      created_at: rfc3339(clock.now()),
      message: expect.stringContaining("Payment wallet "),
      resolved_at: null,
    });
    expect(first.message).toContain("has handed out 3 addresses in a row that received nothing, past its gap limit of 2");
    expect(first.message).toContain("raise the gap limit in the wallet software that holds the private key to at least 3");
    expect(latest.message).toContain("has handed out 6 addresses in a row");

    // Index 4 is paid: the tail counts from there.
    await ingest(td, chain("0xa", 1, 1, "0xa0", { 1: [pay("0xt1", ONE, made[4].address)] }));
    expect(await wallet()).toMatchObject({ next_index: 6, unused_tail: 1 });
    tails.length = 0;
    counts.length = 0;
    await make(2);
    expect(tails).toEqual([2, 3]);
    expect(counts).toEqual([2, 3]);
    expect(made.map((o) => o.derivation_index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });
});
