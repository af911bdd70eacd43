import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { checkoutOrdersById, orderByCheckoutToken } from "../../src/payments/checkout-orders.ts";
import { createOrder, freshAddress } from "../payments/support.ts";
import { startTestDaemon, type TestDaemon } from "../support/harness.ts";
import { onPostgres } from "../support/postgres-only.ts";
import { sqlitePlan, statementsOf } from "../support/query-plan.ts";

// A checkout page, and each look of its live updates, reads the order with the height of its
// newest payment still waiting for confirmations. That height must come from the order's own
// transfers. Asked with `confirmed = 0` in its WHERE, SQLite's planner (chainwatch keeps no
// statistics) took the index of unconfirmed transfers instead and walked those of every order
// until it met one of this order's: with 20,000 other payments waiting, a page view cost 10 ms of
// CPU instead of 0.7 (bench:checkout with BENCH_BACKLOG, docs/benchmarks.md). The plan is held on
// SQLite only: it plans by the query alone; PostgreSQL plans by its statistics. What the height
// is, on both.

let td: TestDaemon;
let order: { id: string; token: string };
let other: string;

/** A transfer row to an order, as the ingest records one. */
function transfer(paymentId: string, n: number, height: number, state: { confirmed?: number; late?: number } = {}) {
  return {
    payment_id: paymentId,
    tx_hash: `0x${n.toString(16).padStart(64, "0")}`,
    movement: 0,
    block_hash: `0x${height.toString(16).padStart(64, "0")}`,
    block_height: height,
    sender: null,
    amount_raw: "1",
    confirmed: state.confirmed ?? 0,
    late: state.late ?? 0,
    created_at: 0,
  };
}

beforeAll(async () => {
  td = await startTestDaemon({ config: { networks: { eth: { family: "evm", decimals: 18, confirmations: 6 } } } });
  const shop = await td.client({ name: "shop", credits: 1_000_000 });
  const made = await createOrder(shop, { order_id: "viewed", network: "eth", address: freshAddress(), amount: "1" });
  order = { id: made.payment_id, token: new URL(made.checkout_url).pathname.split("/").pop() as string };
  other = (await createOrder(shop, { order_id: "other", network: "eth", address: freshAddress(), amount: "1" })).payment_id;
});

afterAll(async () => {
  await td?.stop();
});

describe.skipIf(onPostgres)("a checkout order's look-up, as SQLite plans it", () => {
  test("by token and by id, it reads the order's own transfers by their payment_id index, never every unconfirmed one", async () => {
    const byToken = await statementsOf(td.ctx.db, (db) => orderByCheckoutToken(db, order.token));
    const byId = await statementsOf(td.ctx.db, (db) => checkoutOrdersById(db, [order.id, other]));
    expect([byToken.length, byId.length]).toEqual([1, 1]);
    for (const query of [...byToken, ...byId]) {
      const plan = await sqlitePlan(td.ctx.db, query);
      expect(plan).toContain("SEARCH t USING INDEX sqlite_autoindex_payment_transfers_1 (payment_id=?)");
      expect(plan).not.toContain("payment_transfers_unconfirmed");
    }
  });
});

describe("a checkout order's waiting height", () => {
  test("the height is the order's newest transfer still counted and unconfirmed: not a confirmed one, a late one, or another order's", async () => {
    expect((await orderByCheckoutToken(td.ctx.db, order.token))?.unconfirmed_height).toBeNull();
    await td.ctx.db
      .insertInto("payment_transfers")
      .values([transfer(order.id, 1, 10), transfer(order.id, 2, 12, { confirmed: 1 }), transfer(order.id, 3, 13, { late: 1 }), transfer(other, 4, 14)])
      .execute();
    expect((await orderByCheckoutToken(td.ctx.db, order.token))?.unconfirmed_height).toBe(10);
    const both = await checkoutOrdersById(td.ctx.db, [order.id, other]);
    expect([both.get(order.id)?.unconfirmed_height, both.get(other)?.unconfirmed_height]).toEqual([10, 14]);
  });
});
