import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createCheckoutHub } from "../../src/checkout/hub.ts";
import { networkTips } from "../../src/ingest/blocks.ts";
import { silentLogger } from "../../src/lib/log.ts";
import { blockMaker, createOrder, freshAddress, freshTxHash, ingestOk } from "../payments/support.ts";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { recordingDb } from "../support/query-plan.ts";
import { openEvents } from "./support.ts";

// The live-update hub on its own, over a real daemon's database: how many statements one look
// costs (the same for one stream or hundreds), and that a stream hears only changes.

let td: TestDaemon;
let shop: TestClient;
const block = blockMaker("eth", 5000);
let statements = 0;

beforeAll(async () => {
  td = await startTestDaemon({ config: { rate_limit: { per_key_rps: 1000 }, networks: { eth: { family: "evm", confirmations: 2 } } } });
  shop = await td.client({ credits: 1_000_000 });
});
afterAll(async () => {
  await td?.stop();
});

/** A hub of its own over the daemon's database, counting its statements; never started (looks are made by wake()). */
function hub(maxStreams = 10_000) {
  return createCheckoutHub({
    db: recordingDb(td.daemon.deps.db, () => void statements++),
    clock: td.ctx.clock,
    log: silentLogger,
    networks: td.config.networks,
    tips: networkTips,
    maxStreams,
    maxStreamsPerClient: maxStreams,
  });
}

/** Statements one look costs. */
async function look(h: ReturnType<typeof hub>): Promise<number> {
  const before = statements;
  h.wake();
  await h.worker.idle();
  return statements - before;
}

const state = (s: string) => JSON.stringify({ status: s });

describe("the checkout hub", () => {
  test("one look reads every watched order in one statement, the tip in another and the orders once more, however many streams are open", async () => {
    const orders = await Promise.all([1, 2, 3].map((i) => createOrder(shop, { order_id: `h-${i}`, network: "eth", address: freshAddress("e"), amount: "1" })));
    const h = hub();
    expect(await look(h)).toBe(0);
    h.open(orders[0].payment_id, "a", state("x"), false);
    expect(await look(h)).toBe(3);
    for (let i = 0; i < 150; i++) h.open(orders[i % 3].payment_id, `client-${i}`, state("x"), false);
    expect(h.size()).toBe(151);
    expect(await look(h)).toBe(3);
    await h.worker.stop();
    expect(h.size()).toBe(0);
  });

  test("past 500 watched orders a look takes one more statement per 500, never one per stream", async () => {
    const now = td.ctx.clock.now();
    const rows = Array.from({ length: 501 }, (_, i) => ({
      id: `pay_bulk${String(i).padStart(19, "0")}`,
      account_id: shop.accountId,
      order_id: `bulk-${i}`,
      network: "eth",
      address: `0x${i.toString(16).padStart(40, "f")}`,
      asset: null,
      decimals: 18,
      amount_raw: "1",
      received_raw: "0",
      confirmed_raw: "0",
      status: "pending",
      tx_hash: null,
      expires_at: now + 3_600_000,
      aml: null,
      created_at: now,
      updated_at: now,
      checkout_token: `bulk-token-${i}`,
      checkout_key: `bulk-key-${i}`,
      description: null,
      redirect_url: null,
    }));
    for (let i = 0; i < rows.length; i += 100) await td.ctx.db.insertInto("payments").values(rows.slice(i, i + 100)).execute();
    const h = hub();
    for (const r of rows) h.open(r.id, r.id, state("x"), false);
    expect(await look(h)).toBe(5);
    await h.worker.stop();
  });

  test("a stream hears only changes: looks that find nothing new send nothing", async () => {
    const o = await createOrder(shop, { order_id: "h-quiet", network: "eth", address: freshAddress("e"), amount: "1" });
    // Through the daemon's own hub and route: the first event, then two looks with nothing new.
    const events = await openEvents(`${o.checkout_url}/events`);
    expect(await events.next()).toMatchObject({ status: "waiting" });
    td.daemon.deps.checkout.wake();
    await td.daemon.deps.checkout.worker.idle();
    td.daemon.deps.checkout.wake();
    await td.daemon.deps.checkout.worker.idle();
    await ingestOk(td, block([{ hash: freshTxHash(), from: "0x1111111111111111111111111111111111111111", to: o.address, value: "1000000000000000000" }]));
    // The next event is the change, not a repeat of the state it already had.
    expect(await events.next()).toMatchObject({ status: "seen", confirmations: { have: 1, need: 2 } });
    // A new block moves only the tip: "1 of 2" becomes the next state.
    await ingestOk(td, block());
    expect(await events.until((s) => s.status !== "seen")).toMatchObject({ status: "paid" });
    expect(await events.next()).toBe("closed");
  });

  test("a block stored between a look's reads never pairs the order before it with the tip after it", async () => {
    // Half paid: once that payment confirms, the order is underpaid.
    const o = await createOrder(shop, { order_id: "h-torn", network: "eth", address: freshAddress("e"), amount: "1" });
    await ingestOk(td, block([{ hash: freshTxHash(), from: "0x1111111111111111111111111111111111111111", to: o.address, value: "500000000000000000" }]));
    // The next block, stored while the look reads the tips: it confirms the payment and moves the tip.
    let storeBetween = true;
    const h = createCheckoutHub({
      db: td.ctx.db,
      clock: td.ctx.clock,
      log: silentLogger,
      networks: td.config.networks,
      tips: async (db, networks) => {
        if (storeBetween) {
          storeBetween = false;
          await ingestOk(td, block());
        }
        return networkTips(db, networks);
      },
      maxStreams: 10,
      maxStreamsPerClient: 10,
    });
    const stream = h.open(o.payment_id, "a", state("x"), false) as Response;
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    h.wake();
    await h.worker.idle();
    await h.worker.stop();
    let text = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    const sent = [...text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]) as { status: string; amount_due: string; confirmations: { have: number } });
    // Read apart, the look sent "seen, 2 of 2, 0.5 due": the order from before the block, the tip from after it.
    // The first event is the one the stream was opened with.
    expect(sent.slice(1).map((v) => [v.status, v.amount_due])).toEqual([["underpaid", "0.5"]]);
  });

  test("refuses past its bounds and once stopped", async () => {
    const h = createCheckoutHub({
      db: td.ctx.db,
      clock: td.ctx.clock,
      log: silentLogger,
      networks: td.config.networks,
      tips: networkTips,
      maxStreams: 3,
      maxStreamsPerClient: 2,
    });
    expect(h.open("pay_x", "a", state("x"), false)).toBeInstanceOf(Response);
    expect(h.open("pay_x", "a", state("x"), false)).toBeInstanceOf(Response);
    expect(h.open("pay_x", "a", state("x"), false)).toBe("client_limit");
    expect(h.open("pay_x", "b", state("x"), false)).toBeInstanceOf(Response);
    expect(h.open("pay_x", "c", state("x"), false)).toBe("total_limit");
    await h.worker.stop();
    expect([h.size(), h.open("pay_x", "d", state("x"), false)]).toEqual([0, "total_limit"]);
  });
});
