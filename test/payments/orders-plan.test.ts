import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAccount } from "../../src/accounts/accounts.ts";
import { type Context, openContext } from "../../src/daemon.ts";
import { ordersNewestFirst } from "../../src/payments/orders.ts";
import { onPostgres, testConfig } from "../support/harness.ts";
import { sqlitePlan } from "../support/query-plan.ts";

// Found by timing `GET /v1/payments` on a merchant with 100,000 orders: each page read every order
// of the account and sorted them all (73 ms a page on SQLite, and more with every order). A page
// must come from an index in its order, whether or not it asks for one status. SQLite's planner
// judges by the query alone, so its plan is checked; PostgreSQL's by its statistics.

let dir: string;
let ctx: Context;
let accountId: string;

describe.skipIf(onPostgres)("a page of payment orders is read in its order, never sorted", () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "chainwatch-orders-plan-"));
    ctx = await openContext(testConfig(dir), { env: {} });
    const made = await createAccount(ctx, { name: "merchant", credits: 0 });
    if (!made.ok) throw new Error(made.error);
    accountId = made.account.id;
  });

  afterAll(async () => {
    await ctx?.db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    ["every order", {}, "payments_account_created"],
    ["one status", { status: "pending" as const }, "payments_account_status_created"],
  ])("%s", async (_name, filter, index) => {
    const text = await sqlitePlan(ctx.db, ordersNewestFirst(ctx.db, accountId, { ...filter, limit: 50 }).compile());
    expect(text).toContain(`USING INDEX ${index} (account_id=?`);
    expect(text).not.toContain("TEMP B-TREE");
  });

  it("one order_id is one look-up", async () => {
    const text = await sqlitePlan(ctx.db, ordersNewestFirst(ctx.db, accountId, { orderId: "A-1", limit: 50 }).compile());
    expect(text).toContain("(account_id=? AND order_id=?)");
  });
});
