import { type Kysely, sql } from "kysely";

/**
 * The index retention reads (src/delivery/retention.ts) holds only the deliveries it may delete:
 * settled ones (`completed_at` set) that are not a payment order's webhooks, which stay as long as
 * their order. Oldest first, so each chunk of the hourly prune reads its rows and no others. The
 * index it replaces (0024) also held every payment-order webhook, which each chunk walked past
 * again; and SQLite's planner, asked for settled rows by status, read the due index instead and
 * sorted every settled row for each chunk of 1,000.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("deliveries_completed").execute();
  // Partial: a query with `completed_at < ?` and this very `kind` term implies the condition, on
  // SQLite and PostgreSQL alike.
  await db.schema
    .createIndex("deliveries_prunable")
    .on("deliveries")
    .column("completed_at")
    .where(sql<boolean>`completed_at is not null and kind <> 'payment'`)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("deliveries_prunable").execute();
  await db.schema
    .createIndex("deliveries_completed")
    .on("deliveries")
    .column("completed_at")
    .where(sql.ref("completed_at"), "is not", sql.lit(null))
    .execute();
}
