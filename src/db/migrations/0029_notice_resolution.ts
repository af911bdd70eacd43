import { type Kysely, sql } from "kysely";

/**
 * Notices that end (docs/webhooks.md): `resolved_at` is when a notice's cause ended (the webhook
 * switched on again, the failed delivery re-queued, credits added to an account whose deliveries
 * were held); the cabinet shows only notices without it. At most one `credits_exhausted` notice of
 * an account is open at a time: the unique partial index lets every daemon that holds an account's
 * deliveries try to raise it, and only the first insert stands.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("notices").addColumn("resolved_at", "bigint").execute();
  await db.schema
    .createIndex("notices_credits_open")
    .unique()
    .on("notices")
    .column("account_id")
    .where(sql<boolean>`type = 'credits_exhausted' and resolved_at is null`)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("notices_credits_open").execute();
  await db.schema.alterTable("notices").dropColumn("resolved_at").execute();
}
