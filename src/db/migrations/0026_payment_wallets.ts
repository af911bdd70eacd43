import type { Kysely } from "kysely";

/**
 * Payment wallets (docs/payments.md): an extended public key per account and network from which
 * every order without an address gets one of its own. `key_sealed` is the key's canonical text
 * sealed under the master key like the other secrets (it reveals every address of the merchant);
 * `key_id` (SHA-256 of kind, branch, chain code and public key) tells a key put again from a new
 * one without opening it. A wallet removed or replaced stays as a row with `active = 0`, so a key
 * put back resumes at its `next_index` and no index is ever handed out twice. `last_paid_index` is
 * the highest index that received anything, `gap_notice_tail` the unused tail at the last
 * `wallet_gap` notice. Orders made from a wallet name it and their index.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("payment_wallets")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id"))
    .addColumn("network", "text", (c) => c.notNull())
    .addColumn("key_id", "text", (c) => c.notNull())
    .addColumn("key_sealed", "text", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("fingerprint", "text", (c) => c.notNull())
    .addColumn("gap_limit", "integer", (c) => c.notNull())
    .addColumn("next_index", "bigint", (c) => c.notNull())
    .addColumn("last_paid_index", "bigint")
    .addColumn("gap_notice_tail", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("active", "integer", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .addUniqueConstraint("payment_wallets_key", ["account_id", "network", "key_id"])
    .execute();
  await db.schema.createIndex("payment_wallets_active").on("payment_wallets").columns(["account_id", "network", "active"]).execute();
  // One column per ALTER: SQLite adds one at a time.
  await db.schema.alterTable("payments").addColumn("wallet_id", "text").execute();
  await db.schema.alterTable("payments").addColumn("derivation_index", "bigint").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("payments").dropColumn("derivation_index").execute();
  await db.schema.alterTable("payments").dropColumn("wallet_id").execute();
  await db.schema.dropTable("payment_wallets").execute();
}
