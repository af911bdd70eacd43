import { afterAll, beforeAll, expect, it } from "bun:test";
import type { Kysely, Migrator } from "kysely";
import { type MigrationScratch, migrationScratch } from "../support/migration-scratch.ts";

// 0037_watch_counts fills each account's count of watches from the watches it has: one row per
// account that watches anything, none for an account that watches nothing. Undone, the table is
// gone. On SQLite, and on PostgreSQL when the suite runs there.

let scratch: MigrationScratch;
let db: Kysely<any>;
let migrator: Migrator;

const account = (id: string) => ({ id, name: id, plan: "free", credits: 0, payments_webhook_url: null, created_at: 1, updated_at: 1 });
const watch = (n: number, accountId: string) => ({ id: `aw_${n}`, account_id: accountId, network: "eth", address: `0x${n.toString(16).padStart(40, "0")}`, created_at: n });

beforeAll(async () => {
  scratch = await migrationScratch("0036_delivery_bodies");
  ({ db, migrator } = scratch);
  await db.insertInto("accounts").values([account("acc_three"), account("acc_one"), account("acc_none")]).execute();
  await db.insertInto("watches").values([watch(1, "acc_three"), watch(2, "acc_three"), watch(3, "acc_three"), watch(4, "acc_one")]).execute();
  const { error, results } = await migrator.migrateToLatest();
  expect(error).toBeUndefined();
  expect(results?.map((r) => r.migrationName)).toContain("0037_watch_counts");
});

afterAll(() => scratch.close());

it("counts each account's watches; an account without any has no row", async () => {
  const rows = await db.selectFrom("watch_counts").selectAll().orderBy("account_id").execute();
  expect(rows.map((r) => ({ account_id: r.account_id, watches: Number(r.watches) }))).toEqual([
    { account_id: "acc_one", watches: 1 },
    { account_id: "acc_three", watches: 3 },
  ]);
});

it("is undone by dropping the table", async () => {
  expect((await migrator.migrateTo("0036_delivery_bodies")).error).toBeUndefined();
  await expect(db.selectFrom("watch_counts").selectAll().execute()).rejects.toThrow();
  expect((await migrator.migrateToLatest()).error).toBeUndefined();
  expect((await db.selectFrom("watch_counts").select("account_id").execute()).length).toBe(2);
});
