import { expect, it } from "bun:test";
import { Migrator, sql } from "kysely";
import { openDatabase } from "../../src/db/database.ts";
import { migrations } from "../../src/db/migrations/index.ts";
import { checkoutKey } from "../../src/payments/checkout-token.ts";

// 0027_checkout gives every order made before it a checkout page.

it("gives each existing order its own random token, looked up by its SHA-256", async () => {
  const db = openDatabase(":memory:");
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  expect((await migrator.migrateTo("0025_rate_leases")).error).toBeUndefined();
  const order = (id: string) => ({
    id,
    account_id: "acc_1",
    order_id: id,
    network: "eth",
    address: `0x${id}`,
    asset: null,
    decimals: 18,
    amount_raw: "1",
    received_raw: "0",
    confirmed_raw: "0",
    status: "pending",
    tx_hash: null,
    expires_at: 1,
    aml: null,
    created_at: 1,
    updated_at: 1,
  });
  // Orders alone: their accounts do not matter to this migration.
  await sql`pragma foreign_keys = off`.execute(db);
  await (db as any).insertInto("payments").values([order("a"), order("b"), order("c")]).execute();

  expect((await migrator.migrateToLatest()).error).toBeUndefined();
  const rows = await db.selectFrom("payments").select(["id", "checkout_token", "checkout_key", "description", "redirect_url"]).orderBy("id").execute();
  expect(rows.map((r) => [r.id, r.description, r.redirect_url])).toEqual([
    ["a", null, null],
    ["b", null, null],
    ["c", null, null],
  ]);
  for (const r of rows) {
    expect(r.checkout_token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(r.checkout_key).toBe(checkoutKey(r.checkout_token));
  }
  expect(new Set(rows.map((r) => r.checkout_token)).size).toBe(3);
  await db.destroy();
});
