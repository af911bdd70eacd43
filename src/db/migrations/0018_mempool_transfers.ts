import type { Kysely } from "kysely";

/**
 * Payments to payment-order addresses seen in a UTXO node's mempool, before any block holds them
 * (docs/payments.md, docs/chains.md): they announce an order `seen`. A row is deleted once its transaction
 * is mined (the block's payment transfer counts from then on) or gone from the mempool; an order
 * left with nothing goes back to waiting.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("mempool_transfers")
    .addColumn("payment_id", "text", (c) => c.notNull())
    .addColumn("tx_hash", "text", (c) => c.notNull())
    .addColumn("network", "text", (c) => c.notNull())
    .addColumn("amount_raw", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("mempool_transfers_pk", ["payment_id", "tx_hash"])
    .execute();
  await db.schema.createIndex("mempool_transfers_network").on("mempool_transfers").column("network").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("mempool_transfers").execute();
}
