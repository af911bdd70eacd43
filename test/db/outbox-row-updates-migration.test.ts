import { afterAll, beforeAll, expect, it } from "bun:test";
import { type Kysely, type Migrator, sql } from "kysely";
import { type MigrationScratch, migrationScratch } from "../support/migration-scratch.ts";
import { onPostgres } from "../support/postgres-only.ts";

// 0038_outbox_row_updates: the payment index holds only rows of a payment order, and on PostgreSQL
// outbox pages are half filled, so a lease's new row version fits beside the old one. Undone, both
// are as before. On SQLite, and on PostgreSQL when the suite runs there.

let scratch: MigrationScratch;
let db: Kysely<any>;
let migrator: Migrator;

/** The payment index's definition as the database keeps it. */
async function paymentIndex(): Promise<string> {
  const { rows } = onPostgres
    ? await sql<{ def: string }>`select indexdef as def from pg_indexes where indexname = 'deliveries_payment'`.execute(db)
    : await sql<{ def: string }>`select sql as def from sqlite_master where name = 'deliveries_payment'`.execute(db);
  return rows[0].def.toLowerCase();
}

/** The outbox table's storage options on PostgreSQL (none on SQLite). */
async function outboxOptions(): Promise<string[]> {
  if (!onPostgres) return [];
  const { rows } = await sql<{ options: string[] | null }>`select reloptions as options from pg_class where relname = 'deliveries'`.execute(db);
  return rows[0].options ?? [];
}

beforeAll(async () => {
  scratch = await migrationScratch("0037_watch_counts");
  ({ db, migrator } = scratch);
  expect(await paymentIndex()).not.toContain("where");
  const { error, results } = await migrator.migrateToLatest();
  expect(error).toBeUndefined();
  expect(results?.map((r) => r.migrationName)).toContain("0038_outbox_row_updates");
});

afterAll(() => scratch.close());

it("keeps only a payment's rows in the payment index; half fills outbox pages on PostgreSQL", async () => {
  expect(await paymentIndex()).toMatch(/where \(?"?payment_id"? is not null\)?/);
  expect(await outboxOptions()).toEqual(onPostgres ? ["fillfactor=50"] : []);
});

it("is undone by the full index and the default page fill", async () => {
  expect((await migrator.migrateTo("0037_watch_counts")).error).toBeUndefined();
  expect(await paymentIndex()).not.toContain("where");
  expect(await outboxOptions()).toEqual([]);
  expect((await migrator.migrateToLatest()).error).toBeUndefined();
  expect(await paymentIndex()).toContain("is not null");
});
