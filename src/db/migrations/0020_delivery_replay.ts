import { type Kysely, sql } from "kysely";

/**
 * Delivery recovery (docs/webhooks.md). `replay` marks a delivery queued by an events replay:
 * a new delivery of a stored event, whose every attempt carries `X-Webhook-Replay: true`. The flag
 * rides on the row the claim reads anyway, so the send path pays nothing to learn it. Failed rows
 * get a partial index per account and creation time: a recovery reads a range of them, and they
 * are few beside the rest of the outbox.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("deliveries").addColumn("replay", "integer", (c) => c.notNull().defaultTo(0)).execute();
  // Partial: queries must spell `status = 'failed'` as a literal for SQLite to use it.
  await db.schema
    .createIndex("deliveries_failed")
    .on("deliveries")
    .columns(["account_id", "created_at"])
    .where(sql.ref("status"), "=", sql.lit("failed"))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("deliveries_failed").execute();
  await db.schema.alterTable("deliveries").dropColumn("replay").execute();
}
