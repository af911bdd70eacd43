import type { Kysely } from "kysely";

/**
 * The cabinet's one-time sign-in links and its browser sessions. Only SHA-256 hashes of the
 * tokens are stored: a copy of the database opens no cabinet.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("cabinet_links")
    .addColumn("token_hash", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("expires_at", "integer", (c) => c.notNull())
    .addColumn("used_at", "integer")
    .addColumn("created_at", "integer", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("cabinet_sessions")
    .addColumn("token_hash", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("expires_at", "integer", (c) => c.notNull())
    .addColumn("created_at", "integer", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("cabinet_sessions").execute();
  await db.schema.dropTable("cabinet_links").execute();
}
