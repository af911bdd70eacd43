import type { Db } from "./executor.ts";
import { isPostgres } from "./dialect/detect.ts";
import { postgresStorage } from "./dialect/postgres/storage.ts";
import { sqliteStorage } from "./dialect/sqlite/storage.ts";

/** How big the database is: its files in bytes; on SQLite also its free pages and its WAL file (null: not known). */
export type DatabaseSize = { bytes: number; freeBytes: number | null; walBytes: number | null };

/** The database's size, cheaply: SQLite's page counts and a stat of the WAL; PostgreSQL's pg_database_size(). */
export function databaseSize(db: Db): Promise<DatabaseSize> {
  return isPostgres(db) ? postgresStorage.size(db) : sqliteStorage.size(db);
}

/**
 * After deletes, gives their space back: on SQLite an incremental vacuum in steps (when the file
 * has `auto_vacuum = incremental`); on PostgreSQL nothing, autovacuum does it. Resolves the bytes returned.
 */
export function reclaimSpace(db: Db, stopping: () => boolean = () => false): Promise<number> {
  return isPostgres(db) ? postgresStorage.reclaim() : sqliteStorage.reclaim(db, stopping);
}
