import { type Kysely, sql } from "kysely";

/**
 * Replays bounded and kept behind live work (docs/webhooks.md).
 *
 * The due index gains `replay` between the status and the due time, so the claim reads live rows
 * and replayed rows as two ranges, each in due order: live rows are claimed first, and a replay's
 * thousands of due rows are never walked over to reach them.
 *
 * `deliveries_replay_waiting` holds only replayed rows still to be sent: a replay counts an
 * account's against `delivery.max_replay_pending` and prices them against its balance (by event
 * type and network) from the index alone, without reading the rest of the outbox or the rows
 * themselves. (Which events already wait is read by event id, on deliveries_event.)
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("deliveries_due").execute();
  await db.schema.createIndex("deliveries_due").on("deliveries").columns(["status", "replay", "next_attempt_at"]).execute();
  // Partial: queries must spell the same condition as literals for SQLite to use it.
  await db.schema
    .createIndex("deliveries_replay_waiting")
    .on("deliveries")
    // Every column the count reads, so SQLite answers it from the index alone (the condition's
    // columns too: it does not count a partial index's condition as covered).
    .columns(["account_id", "event_type", "network", "replay", "status"])
    .where(sql<boolean>`replay = 1 and status in ('pending', 'held', 'paused')`)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("deliveries_replay_waiting").execute();
  await db.schema.dropIndex("deliveries_due").execute();
  await db.schema.createIndex("deliveries_due").on("deliveries").columns(["status", "next_attempt_at"]).execute();
}
