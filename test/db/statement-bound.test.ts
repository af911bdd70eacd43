import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { type Db, openDatabase } from "../../src/db/database.ts";
import { onPostgres, testDatabaseUrl } from "../support/harness.ts";
import { postgresOnly } from "../support/postgres-only.ts";

// docs/operations.md: on PostgreSQL a statement may run `query_timeout_ms` at most, except the
// migrations', whose connections are opened without the bound (queryTimeoutMs 0).

describe.skipIf(!onPostgres)(postgresOnly("the per-statement bound on PostgreSQL"), () => {
  // Made in beforeAll: a skipped describe still runs its body, but never its afterAll.
  let dir = "";
  const opened: Db[] = [];
  const open = (queryTimeoutMs: number) => {
    const db = openDatabase(testDatabaseUrl(dir), { pool: { connectTimeoutMs: 5_000, queryTimeoutMs, poolSize: 2 } });
    opened.push(db);
    return db;
  };
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "chainwatch-bound-"));
  });
  afterAll(async () => {
    for (const db of opened) await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  test("a bounded connection refuses a statement that runs past the bound", async () => {
    const db = open(200);
    expect((await sql<{ statement_timeout: string }>`show statement_timeout`.execute(db)).rows[0].statement_timeout).toBe("200ms");
    await expect(sql`select pg_sleep(0.6)`.execute(db)).rejects.toThrow();
  });

  test("a connection opened with no bound (the migrations') runs a statement as long as it takes", async () => {
    const db = open(0);
    expect((await sql<{ statement_timeout: string }>`show statement_timeout`.execute(db)).rows[0].statement_timeout).toBe("0");
    expect((await sql<{ slept: string }>`select pg_sleep(0.6)::text as slept`.execute(db)).rows).toEqual([{ slept: "" }]);
  });
});
