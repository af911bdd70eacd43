import type { Kysely } from "kysely";

/**
 * One row per monthly credit grant: the primary key (account, month) is what makes the grant
 * idempotent — a restart, a second run in the same month or a second daemon inserts nothing and
 * so adds nothing.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("credit_grants")
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("month", "text", (c) => c.notNull())
    .addColumn("plan", "text", (c) => c.notNull())
    .addColumn("credits", "integer", (c) => c.notNull())
    .addColumn("granted_at", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("credit_grants_pk", ["account_id", "month"])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("credit_grants").execute();
}
