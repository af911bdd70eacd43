import { Migrator } from "kysely";
import { openPostgres, type PostgresPoolOptions } from "./dialect/postgres/connection.ts";
import { openSqlite } from "./dialect/sqlite/connection.ts";
import type { Db } from "./executor.ts";
import { migrations } from "./migrations/index.ts";
import type { StorageWatch } from "./storage-full.ts";
import { type Result, type StartupFailure, startupFailure } from "../lib/error-codes.ts";

import type { DialectName } from "./executor.ts";

export type { DialectName, Db, Executor } from "./executor.ts";
export type { PostgresPoolOptions };

/** Which engine a database URL names: postgres:// and postgresql:// are PostgreSQL, the rest SQLite. */
export function dialectOfUrl(url: string): DialectName {
  return /^postgres(ql)?:\/\//.test(url) ? "postgres" : "sqlite";
}

/** The SQLite file path of a sqlite:// URL (`:memory:` stays as is). */
export function sqlitePath(url: string): string {
  return url === ":memory:" ? url : url.replace(/^sqlite:\/\//, "");
}

/**
 * Opens the database a URL names: a pool for postgres(ql)://, else the SQLite file (its folder
 * created) of a sqlite:// URL or `:memory:`. `storage` hears of a full disk under the SQLite file
 * and of the first write after it (storage-full.ts); `pool` sizes PostgreSQL's pool and bounds its every wait.
 */
export function openDatabase(url: string, opts: { storage?: StorageWatch; pool?: PostgresPoolOptions } = {}): Db {
  if (dialectOfUrl(url) === "postgres") return openPostgres(url, opts.pool);
  return openSqlite(sqlitePath(url), opts.storage);
}

export type MigrationOutcome = Result<{ applied: string[] }, StartupFailure>;

/**
 * Applies pending migrations; returns the names applied or the error, never throws. On PostgreSQL
 * Kysely's Migrator holds an advisory lock throughout, so daemons started together apply each
 * migration once. On SQLite Kysely runs migrations outside a transaction and takes no lock (no
 * transactional DDL there): start one process first on a new SQLite database (one daemon owns a
 * SQLite file anyway).
 */
export async function migrate(db: Db): Promise<MigrationOutcome> {
  // Branches own their migration numbers and land in any order (0009 may be applied before 0007):
  // a database that already ran a higher number still gets the lower one that landed later.
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations }, allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  const applied = (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
  if (error) return startupFailure(`migration failed: ${(error as Error).message ?? String(error)}`);
  return { ok: true, applied };
}
