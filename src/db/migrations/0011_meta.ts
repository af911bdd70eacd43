import type { Kysely } from "kysely";

/**
 * A key/value table about the database itself. `migrated_by` holds the chainwatch version that
 * last applied migrations, so an older binary can refuse a schema it does not know (src/db/version-guard.ts).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("meta")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("value", "text", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("meta").execute();
}
