import { statSync } from "node:fs";
import { sql } from "kysely";
import type { Db } from "../../executor.ts";

/** Pages each `incremental_vacuum` step gives back to the file system: 4 MiB at the default 4 KiB page, a short write. */
const PAGES_PER_STEP = 1024;

async function pragma(db: Db, name: string): Promise<number> {
  const { rows } = await sql<Record<string, number>>`${sql.raw(`pragma ${name}`)}`.execute(db);
  return Number(rows[0]?.[name] ?? 0);
}

/** Storage facts of a SQLite database: three pragmas and a stat() of its WAL file. */
export const sqliteStorage = {
  async size(db: Db): Promise<{ bytes: number; freeBytes: number; walBytes: number | null }> {
    const pageSize = await pragma(db, "page_size");
    const pages = await pragma(db, "page_count");
    const free = await pragma(db, "freelist_count");
    const { rows } = await sql<{ name: string; file: string }>`pragma database_list`.execute(db);
    const file = rows.find((r) => r.name === "main")?.file ?? "";
    let walBytes: number | null = null;
    if (file !== "") {
      try {
        walBytes = statSync(`${file}-wal`).size;
      } catch {
        walBytes = 0;
      }
    }
    return { bytes: pages * pageSize, freeBytes: free * pageSize, walBytes };
  },

  /**
   * Gives the pages freed by deletes back to the file system, a step at a time, when the database
   * has `auto_vacuum = incremental` (every database created by this version; see docs/operations.md
   * for an older one). Without it the free pages stay in the file and are reused by later writes.
   */
  async reclaim(db: Db, stopping: () => boolean): Promise<number> {
    if ((await pragma(db, "auto_vacuum")) !== 2) return 0;
    let reclaimed = 0;
    for (;;) {
      const free = await pragma(db, "freelist_count");
      if (free === 0 || stopping()) break;
      const step = Math.min(free, PAGES_PER_STEP);
      await sql`${sql.raw(`pragma incremental_vacuum(${step})`)}`.execute(db);
      reclaimed += step;
    }
    return reclaimed * (await pragma(db, "page_size"));
  },
};
