import { type Kysely, sql } from "kysely";

/**
 * JSON-RPC metering: the usage series counts /rpc calls per day beside deliveries and events.
 * The seeded `free` plan gets docs/rpc.md's default of 25 RPC calls a second, unless an admin has
 * already edited it (then its updated_at moved past its created_at and it is left alone).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("usage_daily").addColumn("rpc_calls", "integer", (c) => c.notNull().defaultTo(0)).execute();
  await sql`update plans set rpc_rps = 25 where name = 'free' and rpc_rps = 10 and updated_at = created_at`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("usage_daily").dropColumn("rpc_calls").execute();
}
