import type { Kysely } from "kysely";

/**
 * Upstream quorum (docs/chains.md). `quorum_heights`, written by the ingest: per network with a
 * quorum, the highest height whose stored block hash enough upstreams returned; events count as
 * confirmed only at or below it. `follower_state` shows since when confirmations wait for the
 * quorum, and at which height, for `follow status`.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("quorum_heights")
    .addColumn("network", "text", (c) => c.primaryKey())
    .addColumn("height", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.alterTable("follower_state").addColumn("quorum_waiting_since", "bigint").execute();
  await db.schema.alterTable("follower_state").addColumn("quorum_height", "bigint").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("follower_state").dropColumn("quorum_height").execute();
  await db.schema.alterTable("follower_state").dropColumn("quorum_waiting_since").execute();
  await db.schema.dropTable("quorum_heights").execute();
}
