import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { CompiledQuery, type DatabaseConnection, type Driver, Kysely, Migrator } from "kysely";
import { BunSqliteDialect } from "kysely-bun-sqlite";
import { migrations } from "./migrations/index.ts";
import type { DB } from "./schema.ts";

export type Db = Kysely<DB>;

/**
 * SQLite dialect whose transactions start with BEGIN IMMEDIATE: the CLI and the daemon write the
 * same file, and a deferred BEGIN that later writes fails with SQLITE_BUSY at once instead of
 * waiting out busy_timeout. Everything dialect-specific lives in this file.
 */
class ImmediateSqliteDialect extends BunSqliteDialect {
  override createDriver(): Driver {
    const driver = super.createDriver();
    driver.beginTransaction = async (connection: DatabaseConnection) => {
      await connection.executeQuery(CompiledQuery.raw("begin immediate"));
    };
    return driver;
  }
}

/** Opens (creating its folder) the SQLite file with the pragmas the daemon relies on. */
export function openDatabase(path: string): Db {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const sqlite = new Database(path, { create: true, strict: true });
  // busy_timeout first, so the journal-mode switch itself waits for another writer.
  sqlite.run("PRAGMA busy_timeout = 5000");
  sqlite.run("PRAGMA journal_mode = WAL");
  sqlite.run("PRAGMA synchronous = NORMAL");
  sqlite.run("PRAGMA foreign_keys = ON");
  return new Kysely<DB>({ dialect: new ImmediateSqliteDialect({ database: sqlite }) });
}

export type MigrationOutcome = { ok: true; applied: string[] } | { ok: false; error: string };

/** Applies pending migrations; returns the names applied or the error, never throws. */
export async function migrate(db: Db): Promise<MigrationOutcome> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error, results } = await migrator.migrateToLatest();
  const applied = (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
  if (error) return { ok: false, error: `migration failed: ${(error as Error).message ?? String(error)}` };
  return { ok: true, applied };
}
