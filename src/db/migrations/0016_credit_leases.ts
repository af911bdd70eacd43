import type { Kysely } from "kysely";

/**
 * Credits a daemon has set aside from an account's balance for /rpc calls and not yet charged
 * (docs/rpc.md, docs/operations.md): one row per daemon and account. A daemon rewrites its own rows at
 * each flush, which also renews `lease_until`; a row whose lease ran out belongs to a daemon that
 * died, and any daemon deletes it, which gives its credits back.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("credit_leases")
    .addColumn("holder", "text", (c) => c.notNull())
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("credits", "integer", (c) => c.notNull())
    .addColumn("lease_until", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("credit_leases_pk", ["holder", "account_id"])
    .execute();
  // What is set aside per account is summed by every credit check (a few rows: one per daemon).
  await db.schema.createIndex("credit_leases_account").on("credit_leases").column("account_id").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("credit_leases").execute();
}
