import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { createClusterLimiter } from "../../src/auth/cluster-limiter.ts";
import type { RateLimiter } from "../../src/auth/rate-limiter.ts";
import { openContext } from "../../src/daemon.ts";
import { type Db, openDatabase } from "../../src/db/database.ts";
import { sharedRateBudget } from "../../src/db/primitives.ts";
import { jsonLogger } from "../../src/lib/log.ts";
import { onPostgres, testConfig } from "../support/harness.ts";
import { until } from "../support/poll.ts";
import { postgresOnly } from "../support/postgres-only.ts";

// The cluster limiter (docs/operations.md) over a real PostgreSQL database: three limiters, each with a
// pool of its own as three daemons would have, drawing on one budget. "Now" is passed in, so a
// burst falls in one second however slow the machine is.

const T0 = Date.UTC(2026, 10, 21, 12, 0, 0) + 300;
const lines: string[] = [];
const log = jsonLogger((line) => void lines.push(line));

describe.skipIf(!onPostgres)(postgresOnly("cluster limiter on PostgreSQL"), () => {
  let dir: string;
  const dbs: Db[] = [];
  const limiter = (db: Db, chunk?: (limit: number) => number): RateLimiter => {
    const budget = sharedRateBudget(db);
    if (!budget) throw new Error("not PostgreSQL");
    return createClusterLimiter({ budget, log, chunk });
  };
  const three = (chunk?: (limit: number) => number) => dbs.map((db) => limiter(db, chunk));
  let keys = 0;
  const freshKey = () => `test:${++keys}`;

  /** `n` single requests spread round-robin over `limiters`, all at once; how many were admitted. */
  async function burst(limiters: RateLimiter[], key: string, limit: number, n: number, nowMs: number): Promise<number> {
    const got = await Promise.all(Array.from({ length: n }, (_, i) => limiters[i % limiters.length].acquire(key, limit, 1, nowMs)));
    return got.reduce((a, b) => a + b, 0);
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "chainwatch-cluster-limiter-"));
    const config = testConfig(dir);
    const ctx = await openContext(config, { env: {} });
    dbs.push(ctx.db, openDatabase(config.database.url), openDatabase(config.database.url));
  });

  afterAll(async () => {
    for (const db of dbs) await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  test("one limiter alone is exact: of 2 × limit requests in one second, limit pass; the window slides", async () => {
    const [one] = three();
    const key = freshKey();
    expect(await burst([one], key, 10, 20, T0)).toBe(10);
    expect(await one.acquire(key, 10, 1, T0 + 999)).toBe(0);
    // A new clock second, and the window of the first burst has passed: the whole limit again.
    expect(await burst([one], key, 10, 20, T0 + 1000)).toBe(10);
  });

  test("one limiter alone keeps its sliding window across a second boundary (never more than the limit in 1000 ms)", async () => {
    const [one] = three();
    const key = freshKey();
    const late = T0 + 600; // 12:00:00.900
    expect(await burst([one], key, 10, 20, late)).toBe(10);
    // The next clock second has a fresh budget, but the sliding window still holds the burst.
    expect(await one.acquire(key, 10, 1, late + 200)).toBe(0);
    expect(await burst([one], key, 10, 20, late + 1000)).toBe(10);
  });

  test("three limiters on one budget admit the limit once, not three times", async () => {
    const limiters = three();
    const key = freshKey();
    expect(await burst(limiters, key, 10, 60, T0)).toBe(10);
    expect(await burst(limiters, key, 10, 60, T0 + 1000)).toBe(10);
  });

  test("with a large limit leased in slices, three limiters admit within 10 % of it", async () => {
    const limiters = three();
    const key = freshKey();
    const got = await burst(limiters, key, 500, 1500, T0);
    expect(got).toBeLessThanOrEqual(500);
    expect(got).toBeGreaterThanOrEqual(450);
  });

  test("a batch takes what is left and no more; the first calls are the ones admitted", async () => {
    const [a, b] = three();
    const key = freshKey();
    expect(await a.acquire(key, 10, 7, T0)).toBe(7);
    expect(await b.acquire(key, 10, 7, T0)).toBe(3);
    expect(await a.acquire(key, 10, 1, T0)).toBe(0);
  });

  test("the same key in another process's second: every limiter sees the budget spent", async () => {
    const [a, b, c] = three();
    const key = freshKey();
    expect(await a.acquire(key, 5, 5, T0)).toBe(5);
    expect(await b.acquire(key, 5, 1, T0)).toBe(0);
    expect(await c.acquire(key, 5, 1, T0)).toBe(0);
  });

  test("rows of past seconds are deleted", async () => {
    const [a] = three();
    const key = freshKey();
    expect(await a.acquire(key, 5, 1, T0)).toBe(1);
    const rows = async () =>
      (await sql<{ n: number }>`select count(*) as n from rate_windows where limit_key = ${key}`.execute(dbs[0])).rows[0].n;
    expect(await rows()).toBe(1);
    // The first call of a limiter prunes; a fresh one thirty seconds on drops the row above.
    const later = limiter(dbs[1]);
    expect(await later.acquire(freshKey(), 5, 1, T0 + 30_000)).toBe(1);
    await until(rows, (n) => Number(n) === 0);
    expect(await rows()).toBe(0);
  });

  test("a database that fails leaves each limiter with its own window, and says so once", async () => {
    const dead = openDatabase(testConfig(dir).database.url.replace(/\/[^/]+$/, "/no_such_database_here"));
    const lim = limiter(dead);
    const key = freshKey();
    const before = lines.length;
    expect(await burst([lim], key, 3, 6, T0)).toBe(3);
    const said = lines.slice(before).filter((l) => l.includes("cluster rate limit budget unreachable"));
    expect(said).toHaveLength(1);
    await dead.destroy();
  });
});
