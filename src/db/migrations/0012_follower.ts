import type { Kysely } from "kysely";

/**
 * Chain followers (docs/chains.md). `token_decimals` caches what a token contract's `decimals()`
 * answered, so each contract is asked once per network, not once per transfer. `follower_state`
 * is how `chainwatch follow status` (another process) sees the daemon's followers: the daemon
 * writes one row per followed network on every poll; `follow rewind` sets `resume_requested`,
 * which a follower stopped by a deep reorg reads to start again.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("token_decimals")
    .addColumn("network", "text", (c) => c.notNull())
    .addColumn("address", "text", (c) => c.notNull())
    // Null: the contract answered, but not with a uint8 (no decimals() function, or it reverted).
    .addColumn("decimals", "integer")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("token_decimals_pk", ["network", "address"])
    .execute();
  await db.schema
    .createTable("follower_state")
    .addColumn("network", "text", (c) => c.primaryKey())
    .addColumn("upstream", "text")
    .addColumn("node_height", "bigint")
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("last_error", "text")
    .addColumn("blocks_per_second", "real", (c) => c.notNull().defaultTo(0))
    .addColumn("resume_requested", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("follower_state").execute();
  await db.schema.dropTable("token_decimals").execute();
}
