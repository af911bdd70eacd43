import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Kysely, Migrator } from "kysely";
import { openDatabase } from "../../src/db/database.ts";
import { migrations } from "../../src/db/migrations/index.ts";
import { testDatabaseUrl } from "./harness.ts";

/** A scratch database for one migration's test, and a migrator over chainwatch's migrations. */
export type MigrationScratch = { db: Kysely<any>; migrator: Migrator; close(): Promise<void> };

/**
 * An empty database of its own (SQLite, or PostgreSQL when the suite runs there) migrated up to
 * `before`, the migration before the one under test, so the test can write the rows that migration
 * will meet; `close` destroys the connection and removes the folder.
 */
export async function migrationScratch(before: string): Promise<MigrationScratch> {
  const dir = mkdtempSync(join(tmpdir(), "chainwatch-migration-"));
  const db = openDatabase(testDatabaseUrl(dir, { empty: true }));
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations }, allowUnorderedMigrations: true });
  const { error } = await migrator.migrateTo(before);
  if (error) throw error;
  return {
    db,
    migrator,
    async close() {
      await db.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
