import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { hasWaitingOrders } from "../../src/payments/mempool.ts";
import { startTestDaemon, type TestDaemon } from "../support/harness.ts";
import { onPostgres } from "../support/postgres-only.ts";
import { sqlitePlan, statementsOf } from "../support/query-plan.ts";

// Each mempool poll of a UTXO network first asks whether any order of it waits for a first payment
// in the native asset. A store keeps every order it ever had, and few wait: asked with
// `network = ?`, SQLite's planner (no statistics) took the (network, address) index and walked every
// order of the network, 37 ms a poll at 100,000 paid or expired ones. The plan is held on SQLite
// only (it plans by the query alone); the answer, on both databases.

let td: TestDaemon;
let accountId: string;

/** An order row of `network` in `status`, `asset` null for the native coin. */
function order(n: number, network: string, status: string, asset: string | null = null) {
  return {
    id: `pay_w${n}`,
    account_id: accountId,
    order_id: `w${n}`,
    network,
    address: `addr_${n}`,
    asset,
    decimals: 8,
    amount_raw: "1",
    received_raw: "0",
    confirmed_raw: "0",
    status,
    expires_at: 0,
    created_at: 0,
    updated_at: 0,
  };
}

beforeAll(async () => {
  td = await startTestDaemon();
  accountId = (await td.client({ name: "waiting" })).accountId;
  await td.ctx.db
    .insertInto("payments")
    .values([
      order(1, "btc", "paid"),
      order(2, "btc", "expired"),
      order(3, "btc", "pending", "0xtoken"),
      order(4, "ltc", "pending"),
      order(5, "doge", "seen"),
      order(6, "dash", "underpaid"),
    ] as never)
    .execute();
});

afterAll(async () => {
  await td?.stop();
});

describe.skipIf(onPostgres)("whether orders wait, as SQLite plans it", () => {
  test("found by the orders' status index, never by a walk of the network's orders", async () => {
    const queries = await statementsOf(td.ctx.db, (db) => hasWaitingOrders(db, "btc"));
    expect(queries.length).toBe(1);
    const plan = await sqlitePlan(td.ctx.db, queries[0]);
    expect(plan).toContain("USING INDEX payments_status_expires (status=?)");
    expect(plan).not.toContain("payments_network_address");
  });
});

describe("whether a network's orders wait for a first payment in its native asset", () => {
  test("pending and seen ones do; paid, expired and underpaid ones, a token's, and another network's do not", async () => {
    expect(await hasWaitingOrders(td.ctx.db, "btc")).toBe(false);
    expect(await hasWaitingOrders(td.ctx.db, "ltc")).toBe(true);
    expect(await hasWaitingOrders(td.ctx.db, "doge")).toBe(true);
    expect(await hasWaitingOrders(td.ctx.db, "dash")).toBe(false);
    expect(await hasWaitingOrders(td.ctx.db, "bch")).toBe(false);
  });
});
