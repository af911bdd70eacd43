import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { manualClock } from "../support/clock.ts";
import { rfc3339 } from "../../src/lib/time.ts";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import {
  blockMaker,
  bodies,
  createOrder,
  freshAddress,
  freshTxHash,
  ingestOk,
  readOrder,
  setPaymentWebhook,
  WEBHOOK_KEYS,
} from "./support.ts";
import { until } from "../support/poll.ts";
import { deliveriesWithBodies } from "../../src/delivery/outbox.ts";

// Every flow runs through the real ingest endpoint, the real delivery loop and a real receiver.
// eth needs 2 confirmations: a payment in block n confirms when block n+1 arrives.

const HACKER = "0x00000000000000000000000000000000000bad01";
const USDT = "0xdAC17F958D2ee523a2206206994597C13D831ec7";
const MONTH = 30 * 86_400;

const clock = manualClock();
const block = blockMaker("eth");
let td: TestDaemon;
let riskDir: string;
const sinks: WebhookSink[] = [];

beforeAll(async () => {
  riskDir = mkdtempSync(join(tmpdir(), "chainwatch-risk-"));
  const riskList = join(riskDir, "risk.json");
  writeFileSync(
    riskList,
    JSON.stringify([
      {
        address: HACKER,
        score: 95,
        risk_level: "severe",
        hacking_event: "Bridge exploit 2025",
        address_label: "Exploiter",
        detail_list: ["Hacker", "Sanctioned"],
        risk_detail: [{ label: "hacker", percent: 100 }],
      },
    ]),
  );
  td = await startTestDaemon({
    clock,
    config: {
      networks: { eth: { family: "evm", decimals: 18, confirmations: 2 } },
      aml: { provider: "local", risk_list: riskList },
    },
  });
});
afterEach(async () => {
  await Promise.all(sinks.splice(0).map((s) => s.stop()));
});
afterAll(async () => {
  await td.stop();
  rmSync(riskDir, { recursive: true, force: true });
});

/** A client with credits for payment deliveries and its payment webhook pointed at a fresh sink. */
async function merchant(): Promise<{ c: TestClient; sink: WebhookSink }> {
  const sink = startWebhookSink();
  sinks.push(sink);
  const c = await td.client({ credits: 1_000_000 });
  await setPaymentWebhook(c, sink.url);
  return { c, sink };
}

/**
 * Waits until no webhook is pending or in flight. Needed before jumping the manual clock: a jump
 * past the delivery lease while a send is in flight would make it due (and sent) again.
 */
async function untilOutboxIdle(): Promise<void> {
  await until(
    () => td.ctx.db.selectFrom("deliveries").select("id").where("status", "=", "pending").limit(1).execute(),
    (busy) => busy.length === 0,
  );
}

const nativeTx = (hash: string, from: string, to: string, value: string) => ({ hash, from, to, value });

describe("a payment order paid in one transaction", () => {
  test("announces seen, then aml_check, then paid with the stored AML object", async () => {
    const { c, sink } = await merchant();
    const address = freshAddress();
    const sender = freshAddress("5");
    const tx = freshTxHash();
    const order = await createOrder(c, { order_id: "inv-1001", network: "eth", address, amount: "1.5", expires_in_seconds: MONTH });

    await ingestOk(td, block([nativeTx(tx, sender, address, "1500000000000000000")]));
    const [seen] = bodies(await sink.waitFor(1));
    const base = {
      product: "payments",
      type: "payment_order",
      payment_id: order.payment_id,
      order_id: "inv-1001",
      network: "eth",
      address,
      asset: null,
      amount: "1.5",
      amount_raw: "1500000000000000000",
      amount_received: "1.5",
      amount_received_raw: "1500000000000000000",
      tx_hash: tx,
    };
    expect(Object.keys(seen)).toEqual(WEBHOOK_KEYS);
    expect(seen).toEqual({ ...base, event: "seen", status: "seen", lifecycle: "seen", aml: null });
    // One confirmation of two: the order waits.
    expect(await readOrder(c, order.payment_id)).toMatchObject({ status: "seen", tx_hash: tx, amount_received: "1.5" });

    await ingestOk(td, block());
    const [, amlCheck, paid] = bodies(await sink.waitFor(3));
    expect(amlCheck).toEqual({ ...base, event: "aml_check", status: "aml_check", lifecycle: "aml_check", aml: null });
    const aml = {
      score: 0,
      risk_level: "low",
      hacking_event: "",
      detail_list: [],
      risk_detail: [],
      address_label: "",
      checked_at: rfc3339(clock.now()),
    };
    expect(Object.keys(paid)).toEqual(WEBHOOK_KEYS);
    expect(paid).toEqual({ ...base, event: "paid", status: "paid", lifecycle: "paid", aml });
    expect(paid.aml.checked_at).toMatch(/\+00:00$/);

    expect(await readOrder(c, order.payment_id)).toEqual({ ...order, status: "paid", tx_hash: tx, amount_received: "1.5", amount_received_raw: "1500000000000000000", aml });
  });

  test("signs each webhook and sends it as JSON to the payment webhook URL", async () => {
    const { c, sink } = await merchant();
    const address = freshAddress();
    await createOrder(c, { order_id: "inv-hdr", network: "eth", address, amount: "1", expires_in_seconds: MONTH });
    await ingestOk(td, block([nativeTx(freshTxHash(), freshAddress("5"), address, "1000000000000000000")]));
    await ingestOk(td, block());
    const [r] = await sink.waitFor(3);
    expect(r.method).toBe("POST");
    expect(r.path).toBe("/hook");
    expect(r.headers["content-type"]).toBe("application/json");
    expect(r.headers["x-signature"]).toMatch(/^[0-9a-f]{64}$/);
    expect(r.headers["x-webhook-id"]).toMatch(/^dlv_/);
  });
});

describe("an underpaid order", () => {
  test("goes seen → underpaid, then a confirmed top-up moves it to aml_check → paid", async () => {
    const { c, sink } = await merchant();
    const address = freshAddress();
    const [first, second] = [freshTxHash(), freshTxHash()];
    const order = await createOrder(c, { order_id: "inv-2002", network: "eth", address, amount: "2", expires_in_seconds: MONTH });

    await ingestOk(td, block([nativeTx(first, freshAddress("5"), address, "1250000000000000000")]));
    await ingestOk(td, block());
    const early = bodies(await sink.waitFor(2));
    expect(early.map((b) => [b.event, b.status, b.lifecycle, b.tx_hash, b.amount_received, b.amount_received_raw])).toEqual([
      ["seen", "seen", "seen", first, "1.25", "1250000000000000000"],
      ["underpaid", "underpaid", "underpaid", first, "1.25", "1250000000000000000"],
    ]);
    expect(await readOrder(c, order.payment_id)).toMatchObject({ status: "underpaid", amount_received: "1.25" });

    await ingestOk(td, block([nativeTx(second, freshAddress("5"), address, "750000000000000000")]));
    await ingestOk(td, block());
    const all = bodies(await sink.waitFor(4));
    expect(all.slice(2).map((b) => [b.event, b.tx_hash, b.amount_received, b.amount_received_raw, b.aml?.risk_level ?? null])).toEqual([
      ["aml_check", second, "2", "2000000000000000000", null],
      ["paid", second, "2", "2000000000000000000", "low"],
    ]);
    expect(all).toHaveLength(4);
  });

  test("stays underpaid without a second underpaid webhook while still short", async () => {
    const { c, sink } = await merchant();
    const address = freshAddress();
    const order = await createOrder(c, { order_id: "inv-short", network: "eth", address, amount: "3", expires_in_seconds: MONTH });
    await ingestOk(td, block([nativeTx(freshTxHash(), freshAddress("5"), address, "1000000000000000000")]));
    await ingestOk(td, block([nativeTx(freshTxHash(), freshAddress("5"), address, "1000000000000000000")]));
    await ingestOk(td, block());
    await sink.waitFor(2);
    expect(await readOrder(c, order.payment_id)).toMatchObject({ status: "underpaid", amount_received: "2" });
    // The outbox is written in the ingest transaction, so this count is final once ingest answered.
    const queued = await deliveriesWithBodies(td.ctx.db).where("payment_id", "=", order.payment_id).orderBy("sequence").execute();
    expect(queued.map((d) => JSON.parse(d.body).event)).toEqual(["seen", "underpaid"]);
  });
});

describe("AML screening", () => {
  test("fails the order when the completing sender is risk-listed, sending the AML object", async () => {
    const { c, sink } = await merchant();
    const address = freshAddress();
    const tx = freshTxHash();
    const order = await createOrder(c, { order_id: "inv-3003", network: "eth", address, amount: "0.1", expires_in_seconds: MONTH });
    // Upper-case hex from the feed is the same sender as the list's lower-case entry.
    await ingestOk(td, block([nativeTx(tx, HACKER.toUpperCase().replace("0X", "0x"), address, "100000000000000000")]));
    await ingestOk(td, block());
    const all = bodies(await sink.waitFor(3));
    const aml = {
      score: 95,
      risk_level: "severe",
      hacking_event: "Bridge exploit 2025",
      detail_list: ["Hacker", "Sanctioned"],
      risk_detail: [{ label: "hacker", percent: 100 }],
      address_label: "Exploiter",
      checked_at: rfc3339(clock.now()),
    };
    expect(all.map((b) => b.event)).toEqual(["seen", "aml_check", "failed"]);
    expect(all[2]).toMatchObject({ event: "failed", status: "failed", lifecycle: "failed", tx_hash: tx, aml });
    expect(await readOrder(c, order.payment_id)).toMatchObject({ status: "failed", aml });
  });
});

describe("a token payment order", () => {
  test("counts only transfers of its asset, with the asset's 6 decimals", async () => {
    const { c, sink } = await merchant();
    const address = freshAddress();
    const tx = freshTxHash();
    const order = await createOrder(c, {
      order_id: "inv-4004",
      network: "eth",
      address,
      amount: "25.5",
      asset: USDT,
      decimals: 6,
      expires_in_seconds: MONTH,
    });
    const sender = freshAddress("5");
    await ingestOk(
      td,
      block([
        {
          hash: tx,
          from: sender,
          to: USDT,
          // Native value to the address and another token's transfer must not count toward a USDT order.
          value: "0",
          transfers: [
            { asset: "0x1111111111111111111111111111111111111111", from: sender, to: address, value: "99000000", decimals: 6 },
            { asset: USDT.toUpperCase().replace("0X", "0x"), from: sender, to: address, value: "25500000", decimals: 6 },
          ],
        },
        nativeTx(freshTxHash(), sender, address, "5"),
      ]),
    );
    await ingestOk(td, block());
    const all = bodies(await sink.waitFor(3));
    expect(all.map((b) => [b.event, b.asset, b.amount, b.amount_raw, b.amount_received, b.amount_received_raw, b.tx_hash])).toEqual([
      ["seen", USDT.toLowerCase(), "25.5", "25500000", "25.5", "25500000", tx],
      ["aml_check", USDT.toLowerCase(), "25.5", "25500000", "25.5", "25500000", tx],
      ["paid", USDT.toLowerCase(), "25.5", "25500000", "25.5", "25500000", tx],
    ]);
    expect(await readOrder(c, order.payment_id)).toMatchObject({ status: "paid", asset: USDT.toLowerCase() });
  });
});

describe("webhook order", () => {
  test("a later webhook waits until the earlier one of the same order succeeded", async () => {
    const { c, sink } = await merchant();
    // The receiver refuses the first attempt (the `seen` webhook); it is retried after 1 s.
    sink.respond((_req, i) => new Response(i === 0 ? "try later" : "ok", { status: i === 0 ? 503 : 200 }));
    const address = freshAddress();
    const order = await createOrder(c, { order_id: "inv-5005", network: "eth", address, amount: "1", expires_in_seconds: MONTH });
    await ingestOk(td, block([nativeTx(freshTxHash(), freshAddress("5"), address, "1000000000000000000")]));
    await ingestOk(td, block());
    await sink.waitFor(1);
    // The clock is manual: once the refusal is recorded, move it past the 1 s backoff.
    await until(
      () => td.ctx.db.selectFrom("deliveries").select(["attempts", "status"]).where("payment_id", "=", order.payment_id).where("sequence", "=", 1).executeTakeFirstOrThrow(),
      (d) => d.attempts === 1 && d.status === "pending",
    );
    clock.advance(1_000);
    const all = bodies(await sink.waitFor(4));
    expect(all.map((b) => b.event)).toEqual(["seen", "seen", "aml_check", "paid"]);
    expect(all.some((b) => b.event === "check" || b.status === "check")).toBe(false);
  });
});

describe("expiry", () => {
  test("expires an unpaid order with tx_hash null, then a late payment is recorded without reopening it", async () => {
    const { c, sink } = await merchant();
    const address = freshAddress();
    const order = await createOrder(c, { order_id: "inv-6006", network: "eth", address, amount: "1", expires_in_seconds: 60 });
    await untilOutboxIdle();
    clock.advance(61_000);
    const [expired] = bodies(await sink.waitFor(1));
    expect(expired).toEqual({
      product: "payments",
      type: "payment_order",
      event: "expired",
      payment_id: order.payment_id,
      order_id: "inv-6006",
      network: "eth",
      address,
      asset: null,
      amount: "1",
      amount_raw: "1000000000000000000",
      amount_received: "0",
      amount_received_raw: "0",
      status: "expired",
      lifecycle: "expired",
      tx_hash: null,
      aml: null,
    });

    const late = freshTxHash();
    await ingestOk(td, block([nativeTx(late, freshAddress("5"), address, "1000000000000000000")]));
    await ingestOk(td, block());
    expect(await readOrder(c, order.payment_id)).toMatchObject({ status: "expired", tx_hash: null, amount_received: "0" });
    const transfers = await td.ctx.db.selectFrom("payment_transfers").selectAll().where("payment_id", "=", order.payment_id).execute();
    expect(transfers.map((t) => [t.tx_hash, t.amount_raw, t.late])).toEqual([[late, "1000000000000000000", 1]]);
    const queued = await deliveriesWithBodies(td.ctx.db).where("payment_id", "=", order.payment_id).execute();
    expect(queued.map((d) => JSON.parse(d.body).event)).toEqual(["expired"]);
  });

  test("expires an underpaid order naming the transaction that underpaid it", async () => {
    const { c, sink } = await merchant();
    const address = freshAddress();
    const tx = freshTxHash();
    const order = await createOrder(c, { order_id: "inv-7007", network: "eth", address, amount: "1", expires_in_seconds: 60 });
    await ingestOk(td, block([nativeTx(tx, freshAddress("5"), address, "400000000000000000")]));
    await ingestOk(td, block());
    await untilOutboxIdle();
    clock.advance(61_000);
    const all = bodies(await sink.waitFor(3));
    expect(all.map((b) => [b.event, b.tx_hash, b.amount_received])).toEqual([
      ["seen", tx, "0.4"],
      ["underpaid", tx, "0.4"],
      ["expired", tx, "0.4"],
    ]);
    expect(await readOrder(c, order.payment_id)).toMatchObject({ status: "expired", tx_hash: tx });
  });

  test("does not expire an order whose payment is seen but not yet confirmed", async () => {
    const { c, sink } = await merchant();
    const address = freshAddress();
    const order = await createOrder(c, { order_id: "inv-8008", network: "eth", address, amount: "1", expires_in_seconds: 60 });
    await ingestOk(td, block([nativeTx(freshTxHash(), freshAddress("5"), address, "1000000000000000000")]));
    await untilOutboxIdle();
    clock.advance(61_000);
    // Completing the payment after expires_at still pays: seen orders wait for the chain.
    await ingestOk(td, block());
    expect(bodies(await sink.waitFor(3)).map((b) => b.event)).toEqual(["seen", "aml_check", "paid"]);
    expect((await readOrder(c, order.payment_id)).status).toBe("paid");
  });

  test("frees the address for a new order once the old one expired", async () => {
    const { c, sink } = await merchant();
    const address = freshAddress();
    await createOrder(c, { order_id: "inv-9009", network: "eth", address, amount: "1", expires_in_seconds: 60 });
    const busy = await c.request("POST", "/v1/payments", { order_id: "inv-9010", network: "eth", address, amount: "1" });
    expect(busy.status).toBe(409);
    expect(await busy.json()).toEqual({ error: "Address already has an active order." });
    await untilOutboxIdle();
    clock.advance(61_000);
    await sink.waitFor(1);
    const next = await createOrder(c, { order_id: "inv-9010", network: "eth", address, amount: "1", expires_in_seconds: MONTH });
    expect(next.status).toBe("pending");
    // A payment now goes to the live order, not the expired one.
    await ingestOk(td, block([nativeTx(freshTxHash(), freshAddress("5"), address, "1000000000000000000")]));
    const all = bodies(await sink.waitFor(2));
    expect(all.map((b) => [b.event, b.order_id])).toEqual([
      ["expired", "inv-9009"],
      ["seen", "inv-9010"],
    ]);
  });
});

describe("what counts toward an order", () => {
  test("a payment and its confirming block in one batch go straight through to paid", async () => {
    const { c, sink } = await merchant();
    const address = freshAddress();
    await createOrder(c, { order_id: "inv-batch", network: "eth", address, amount: "1", expires_in_seconds: MONTH });
    await ingestOk(td, [block([nativeTx(freshTxHash(), freshAddress("5"), address, "1000000000000000000")]), block()]);
    expect(bodies(await sink.waitFor(3)).map((b) => b.event)).toEqual(["seen", "aml_check", "paid"]);
  });

  test("an overpayment pays the order and reports what arrived", async () => {
    const { c, sink } = await merchant();
    const address = freshAddress();
    const order = await createOrder(c, { order_id: "inv-over", network: "eth", address, amount: "1", expires_in_seconds: MONTH });
    await ingestOk(td, [block([nativeTx(freshTxHash(), freshAddress("5"), address, "1200000000000000000")]), block()]);
    const paid = bodies(await sink.waitFor(3))[2];
    expect(paid).toMatchObject({ event: "paid", amount: "1", amount_received: "1.2", amount_received_raw: "1200000000000000000" });
    expect(await readOrder(c, order.payment_id)).toMatchObject({ status: "paid", amount_received: "1.2" });
  });

  test("the same transaction re-sent in another block counts once", async () => {
    const { c, sink } = await merchant();
    const address = freshAddress();
    const tx = nativeTx(freshTxHash(), freshAddress("5"), address, "500000000000000000");
    const order = await createOrder(c, { order_id: "inv-twice", network: "eth", address, amount: "1", expires_in_seconds: MONTH });
    await ingestOk(td, block([tx]));
    await ingestOk(td, block([tx]));
    await ingestOk(td, block());
    expect(bodies(await sink.waitFor(2)).map((b) => [b.event, b.amount_received])).toEqual([
      ["seen", "0.5"],
      ["underpaid", "0.5"],
    ]);
    expect(await readOrder(c, order.payment_id)).toMatchObject({ status: "underpaid", amount_received: "0.5" });
  });

  test("zero-value transfers, outgoing payments and other networks leave the order pending", async () => {
    const { c } = await merchant();
    const address = freshAddress();
    const order = await createOrder(c, { order_id: "inv-none", network: "eth", address, amount: "1", expires_in_seconds: MONTH });
    await ingestOk(td, [
      block([
        { hash: freshTxHash(), from: freshAddress("5"), to: USDT, value: "0", transfers: [{ asset: null, from: freshAddress("5"), to: address, value: "0" }] },
        nativeTx(freshTxHash(), address, freshAddress("5"), "1000000000000000000"),
      ]),
      block(),
    ]);
    await ingestOk(td, blockMaker("bsc")([nativeTx(freshTxHash(), freshAddress("5"), address, "1000000000000000000")]));
    expect(await readOrder(c, order.payment_id)).toMatchObject({ status: "pending", amount_received: "0", tx_hash: null });
    const queued = await td.ctx.db.selectFrom("deliveries").select("id").where("payment_id", "=", order.payment_id).execute();
    expect(queued).toEqual([]);
  });
});
