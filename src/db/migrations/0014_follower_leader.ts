import type { Kysely } from "kysely";

/**
 * Follower leadership (docs/operations.md): with several daemons on one PostgreSQL database only the daemon
 * leading a network's follower writes its `follower_state` row, and names itself in `leader`, so
 * `follow status` shows which daemon follows the network. Null in rows written before.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("follower_state").addColumn("leader", "text").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("follower_state").dropColumn("leader").execute();
}
