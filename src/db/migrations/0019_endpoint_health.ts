import type { Kysely } from "kysely";

/**
 * The health of each account's webhook endpoint and the notices an account holder is shown
 * (docs/webhooks.md). `endpoint_health` has one row per account whose webhook was ever
 * attempted: the first failure of the current run of failures, the last success, the last error,
 * and when the run disabled the webhook. `notices` are the account's messages (an endpoint
 * disabled, a delivery that used up its attempts), newest first by id. Both are written by
 * src/delivery/ only.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("endpoint_health")
    .addColumn("account_id", "text", (c) => c.primaryKey())
    .addColumn("failing_since", "bigint")
    .addColumn("last_success_at", "bigint")
    .addColumn("last_status_code", "integer")
    .addColumn("last_error", "text")
    .addColumn("disabled_at", "bigint")
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("notices")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("message", "text", (c) => c.notNull())
    .addColumn("delivery_id", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  // An account's notices, newest first: ids are time-ordered.
  await db.schema.createIndex("notices_account").on("notices").columns(["account_id", "id"]).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("notices").execute();
  await db.schema.dropTable("endpoint_health").execute();
}
