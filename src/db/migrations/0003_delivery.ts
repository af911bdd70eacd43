import type { Kysely } from "kysely";

/** The webhook outbox and its attempt log. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("deliveries")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("event_type", "text", (c) => c.notNull())
    .addColumn("network", "text", (c) => c.notNull())
    .addColumn("event_id", "text")
    .addColumn("payment_id", "text")
    .addColumn("sequence", "integer")
    .addColumn("body", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("next_attempt_at", "bigint", (c) => c.notNull())
    .addColumn("lease_until", "bigint")
    .addColumn("last_status_code", "integer")
    .addColumn("last_error", "text")
    .addColumn("credits_charged", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .addColumn("completed_at", "bigint")
    .execute();
  // The loop claims `pending` rows whose next_attempt_at has come.
  await db.schema.createIndex("deliveries_due").on("deliveries").columns(["status", "next_attempt_at"]).execute();
  await db.schema.createIndex("deliveries_account").on("deliveries").columns(["account_id", "created_at"]).execute();
  await db.schema.createIndex("deliveries_payment").on("deliveries").columns(["payment_id", "sequence"]).execute();

  await db.schema
    .createTable("delivery_attempts")
    .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("delivery_id", "text", (c) => c.notNull())
    .addColumn("attempt", "integer", (c) => c.notNull())
    .addColumn("url", "text")
    .addColumn("started_at", "bigint", (c) => c.notNull())
    .addColumn("duration_ms", "integer", (c) => c.notNull())
    .addColumn("status_code", "integer")
    .addColumn("error", "text")
    .addColumn("response_snippet", "text")
    .execute();
  await db.schema.createIndex("delivery_attempts_delivery").on("delivery_attempts").column("delivery_id").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ["delivery_attempts", "deliveries"]) await db.schema.dropTable(t).execute();
}
