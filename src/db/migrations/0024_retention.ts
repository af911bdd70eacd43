import { type Kysely, sql } from "kysely";

/**
 * Retention of settled deliveries (docs/webhooks.md, `delivery.retention_days`): the hourly prune
 * deletes succeeded and failed deliveries completed before the cutoff, oldest first. Only
 * settled rows have `completed_at`, so a partial index on it holds exactly the rows retention can
 * delete, in the order it deletes them, and the delivery hot path (pending rows) never touches it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  // Partial: a query with `completed_at < ?` implies the condition, so SQLite uses it.
  await db.schema
    .createIndex("deliveries_completed")
    .on("deliveries")
    .column("completed_at")
    .where(sql.ref("completed_at"), "is not", sql.lit(null))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("deliveries_completed").execute();
}
