import { type Kysely, sql } from "kysely";

/**
 * The due index holds only the rows still to be sent: pending, held and paused ones. Settling a
 * row (succeeded or failed) then deletes its entry instead of moving it to the settled rows' end of
 * the index, and the claim's index no longer grows with the delivery log. Partial, in three
 * equality terms joined by `or`: a query's literal `status = 'pending'` (or `'held'`, `'paused'`)
 * implies that condition on SQLite and PostgreSQL alike, so every query that names one of these
 * states as a literal still reads the index; a query asking for a state by a bound parameter, or
 * for several states through `in (…)`, does not (the outbox's queries spell `UNSETTLED`).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("deliveries_due").execute();
  await db.schema
    .createIndex("deliveries_due")
    .on("deliveries")
    .columns(["status", "replay", "next_attempt_at"])
    .where(sql<boolean>`status = 'pending' or status = 'held' or status = 'paused'`)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("deliveries_due").execute();
  await db.schema.createIndex("deliveries_due").on("deliveries").columns(["status", "replay", "next_attempt_at"]).execute();
}
