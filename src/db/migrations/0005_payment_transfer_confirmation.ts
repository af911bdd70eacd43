import type { Kysely } from "kysely";

/** Lets each ingest find the unconfirmed payment transfers deep enough to confirm without scanning them all. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex("payment_transfers_unconfirmed")
    .on("payment_transfers")
    .columns(["confirmed", "block_height"])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("payment_transfers_unconfirmed").execute();
}
