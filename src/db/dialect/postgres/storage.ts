import { sql } from "kysely";
import type { Db } from "../../executor.ts";

/** Storage facts of a PostgreSQL database. */
export const postgresStorage = {
  /** pg_database_size(): the size of the database's files, read from the catalog (a stat per relation file). */
  async size(db: Db): Promise<{ bytes: number; freeBytes: number | null; walBytes: null }> {
    const { rows } = await sql<{ bytes: string }>`select pg_database_size(current_database()) as bytes`.execute(db);
    return { bytes: Number(rows[0]?.bytes ?? 0), freeBytes: null, walBytes: null };
  },
  /** Nothing to do: autovacuum marks deleted rows' space reusable, and new rows fill it. */
  async reclaim(): Promise<number> {
    return 0;
  },
};
