import type { Kysely } from "kysely";

/**
 * Block events are stored once per block (account_id `*`) instead of once per watching account:
 * a thousand accounts on one network would otherwise turn each block into a thousand rows, each
 * carrying the same list of transaction hashes. Who received which block event is kept as
 * intervals of event seq per (account, network), opened and closed as watchers come and go.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("block_subscriptions")
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("network", "text", (c) => c.notNull())
    .addColumn("from_seq", "integer", (c) => c.notNull())
    .addColumn("until_seq", "integer")
    .addPrimaryKeyConstraint("block_subscriptions_pk", ["account_id", "network", "from_seq"])
    .execute();
  // Each ingest batch reads the open subscriptions of a network.
  await db.schema.createIndex("block_subscriptions_open").on("block_subscriptions").columns(["network", "until_seq"]).execute();
  // The listing reads shared block events of one network within a seq interval.
  await db.schema.createIndex("events_account_network_seq").on("events").columns(["account_id", "network", "seq"]).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("events_account_network_seq").execute();
  await db.schema.dropTable("block_subscriptions").execute();
}
