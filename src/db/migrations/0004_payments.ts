import type { Kysely } from "kysely";

/** Payment orders, the movements that paid them, and the AML screening queue. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("payments")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id"))
    .addColumn("order_id", "text", (c) => c.notNull())
    .addColumn("network", "text", (c) => c.notNull())
    .addColumn("address", "text", (c) => c.notNull())
    .addColumn("asset", "text")
    .addColumn("decimals", "integer", (c) => c.notNull())
    .addColumn("amount_raw", "text", (c) => c.notNull())
    .addColumn("received_raw", "text", (c) => c.notNull())
    .addColumn("confirmed_raw", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("tx_hash", "text")
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .addColumn("aml", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .addUniqueConstraint("payments_account_order", ["account_id", "order_id"])
    .execute();
  await db.schema.createIndex("payments_network_address").on("payments").columns(["network", "address"]).execute();
  await db.schema.createIndex("payments_status_expires").on("payments").columns(["status", "expires_at"]).execute();

  await db.schema
    .createTable("payment_transfers")
    .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("payment_id", "text", (c) => c.notNull())
    .addColumn("tx_hash", "text", (c) => c.notNull())
    .addColumn("movement", "integer", (c) => c.notNull())
    .addColumn("block_hash", "text", (c) => c.notNull())
    .addColumn("block_height", "bigint", (c) => c.notNull())
    .addColumn("sender", "text")
    .addColumn("amount_raw", "text", (c) => c.notNull())
    .addColumn("confirmed", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("late", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addUniqueConstraint("payment_transfers_once", ["payment_id", "tx_hash", "movement"])
    .execute();

  await db.schema
    .createTable("aml_jobs")
    .addColumn("payment_id", "text", (c) => c.primaryKey())
    .addColumn("network", "text", (c) => c.notNull())
    .addColumn("address", "text", (c) => c.notNull())
    .addColumn("tx_hash", "text")
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("next_attempt_at", "bigint", (c) => c.notNull())
    .addColumn("lease_until", "bigint")
    .addColumn("last_error", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ["aml_jobs", "payment_transfers", "payments"]) await db.schema.dropTable(t).execute();
}
