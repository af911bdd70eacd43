import type { Kysely } from "kysely";
import { isPostgres } from "../dialect/detect.ts";

/**
 * Watches list in insertion order. SQLite keeps it in `rowid` (nothing to add there); PostgreSQL
 * has no stable row order, so it gets an explicit identity column. See `insertionOrder` in each
 * dialect's primitives.ts.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await db.schema
    .alterTable("watches")
    .addColumn("position", "bigint", (c) => c.generatedByDefaultAsIdentity())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await db.schema.alterTable("watches").dropColumn("position").execute();
}
