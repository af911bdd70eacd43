import type { Kysely } from "kysely";

/** Watched addresses, ingested blocks (the tip per network) and address-watch events. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("watches")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id"))
    .addColumn("network", "text", (c) => c.notNull())
    .addColumn("address", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addUniqueConstraint("watches_account_network_address", ["account_id", "network", "address"])
    .execute();
  // The matcher looks watches up by (network, address) for every movement of every block.
  await db.schema.createIndex("watches_network_address").on("watches").columns(["network", "address"]).execute();

  await db.schema
    .createTable("blocks")
    .addColumn("network", "text", (c) => c.notNull())
    .addColumn("hash", "text", (c) => c.notNull())
    .addColumn("height", "bigint", (c) => c.notNull())
    .addColumn("parent_hash", "text")
    .addColumn("timestamp", "bigint")
    .addColumn("tx_count", "integer", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("blocks_pk", ["network", "hash"])
    .execute();
  await db.schema.createIndex("blocks_network_height").on("blocks").columns(["network", "height"]).execute();

  await db.schema
    .createTable("events")
    .addColumn("seq", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("id", "text", (c) => c.notNull().unique())
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("network", "text", (c) => c.notNull())
    .addColumn("watch_id", "text")
    .addColumn("dedupe_key", "text", (c) => c.notNull().unique())
    .addColumn("body", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("events_account_seq").on("events").columns(["account_id", "seq"]).execute();
  await db.schema.createIndex("events_created_at").on("events").column("created_at").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ["events", "blocks", "watches"]) await db.schema.dropTable(t).execute();
}
