import type { Kysely } from "kysely";

/**
 * UTXO chains (the btc family): the outputs that paid a watched address, so that a later
 * transaction spending one is known as a payout of that address (a node without `-txindex` cannot
 * say what an input spends). Written in the ingest transaction of the block that created the
 * output (`block_hash`) and of the block that spent it (`spent_block_hash`); orphaning either
 * block undoes its part.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("watched_outputs")
    .addColumn("network", "text", (c) => c.notNull())
    .addColumn("txid", "text", (c) => c.notNull())
    .addColumn("vout", "bigint", (c) => c.notNull())
    .addColumn("address", "text", (c) => c.notNull())
    .addColumn("value_raw", "text", (c) => c.notNull())
    .addColumn("block_hash", "text", (c) => c.notNull())
    .addColumn("height", "bigint", (c) => c.notNull())
    .addColumn("spent_txid", "text")
    .addColumn("spent_block_hash", "text")
    .addPrimaryKeyConstraint("watched_outputs_pk", ["network", "txid", "vout"])
    .execute();
  // A reorg undoes the outputs a block created and the spends it made.
  await db.schema.createIndex("watched_outputs_block").on("watched_outputs").columns(["network", "block_hash"]).execute();
  await db.schema.createIndex("watched_outputs_spent_block").on("watched_outputs").columns(["network", "spent_block_hash"]).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("watched_outputs").execute();
}
