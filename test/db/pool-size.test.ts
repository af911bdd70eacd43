import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { openDatabase } from "../../src/db/database.ts";
import { openContext } from "../../src/context.ts";
import { onPostgres, testConfig } from "../support/harness.ts";
import { postgresOnly } from "../support/postgres-only.ts";

// docs/config.md, `database.pool_size`: on PostgreSQL a daemon holds at most that many pooled
// connections; statements beyond them wait for one instead of opening more.

describe.skipIf(!onPostgres)(postgresOnly("database.pool_size on PostgreSQL"), () => {
  const dir = mkdtempSync(join(tmpdir(), "chainwatch-pool-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("twelve statements at once on a pool of 3 run on 3 connections, the rest wait their turn", async () => {
    const ctx = await openContext(testConfig(dir, { database: { pool_size: 3 } }));
    // Another process's view of the database: the backends running the statements below.
    const observer = openDatabase(ctx.config.database.url);
    try {
      const tag = `pool-size-${process.pid}`;
      const sleeping = async () =>
        Number(
          (
            await sql<{ n: number }>`select count(*) as n from pg_stat_activity
              where datname = current_database() and state = 'active' and query like ${`%${tag}%`} and pid <> pg_backend_pid()`.execute(observer)
          ).rows[0].n,
        );
      let settled = false;
      const statements = Promise.all(
        Array.from({ length: 12 }, () => sql.raw<{ slept: string }>(`select pg_sleep(0.15)::text as slept /* ${tag} */`).execute(ctx.db)),
      ).finally(() => {
        settled = true;
      });
      const seen: number[] = [];
      while (!settled) {
        seen.push(await sleeping());
        await Bun.sleep(20);
      }
      expect((await statements).map((r) => r.rows)).toEqual(Array.from({ length: 12 }, () => [{ slept: "" }]));
      expect(Math.max(...seen)).toBe(3);
    } finally {
      await observer.destroy();
      await ctx.db.destroy();
    }
  });
});
