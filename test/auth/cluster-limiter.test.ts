import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { createClusterLimiter } from "../../src/auth/cluster-limiter.ts";
import { openContext } from "../../src/daemon.ts";
import { type Db, openDatabase } from "../../src/db/database.ts";
import { slidingRateBudget } from "../../src/db/primitives.ts";
import { systemClock } from "../../src/lib/clock.ts";
import { jsonLogger } from "../../src/lib/log.ts";
import { onPostgres, testConfig } from "../support/harness.ts";
import { manualClock } from "../support/clock.ts";
import { until } from "../support/poll.ts";
import { postgresOnly } from "../support/postgres-only.ts";

// The cluster limiter (docs/operations.md) over a real PostgreSQL database: three limiters, each with a
// pool of its own as three daemons would have, drawing on one budget. "Now" is passed in, so a
// burst falls at one instant however slow the machine is; each limiter reads one clock for both
// readings (the wall clock does not step here, except where a test says so).

// A minute ahead of the database server's clock, by which rows of keys with nothing counting any
// more are deleted: nothing here is deleted while the file runs, unless a test means it to be.
const T0 = Math.floor(Date.now() / 1000) * 1000 + 60_000 + 300;
const lines: string[] = [];
const log = jsonLogger((line) => void lines.push(line));
type Limiter = { acquire(key: string, limit: number, n: number, nowMs: number): number | Promise<number> };

describe.skipIf(!onPostgres)(postgresOnly("cluster limiter on PostgreSQL"), () => {
  let dir: string;
  const dbs: Db[] = [];
  const limiter = (db: Db, chunk?: (limit: number) => number, pruneEveryMs?: number): Limiter => {
    const budget = slidingRateBudget(db);
    if (!budget) throw new Error("not PostgreSQL");
    const l = createClusterLimiter({ budget, log, clock: systemClock, chunk, pruneEveryMs });
    return { acquire: (key, limit, n, nowMs) => l.acquire(key, limit, n, { wallMs: nowMs, monoMs: nowMs }) };
  };
  const three = (chunk?: (limit: number) => number) => dbs.map((db) => limiter(db, chunk));
  let keys = 0;
  const freshKey = () => `test:${++keys}`;
  const rows = async (key: string) =>
    Number((await sql<{ n: number }>`select count(*) as n from rate_leases where limit_key = ${key}`.execute(dbs[0])).rows[0].n);
  /** How many of a key's entries are leases still held by a limiter (not yet replaced by what it used). */
  const leases = async (key: string) =>
    Number(
      (await sql<{ n: number }>`select count(*) as n from rate_leases, unnest(holders) as h where limit_key = ${key} and h <> ''`.execute(dbs[0]))
        .rows[0].n,
    );

  /** `n` single requests spread round-robin over `limiters`, all at once; how many were admitted. */
  async function burst(limiters: Limiter[], key: string, limit: number, n: number, nowMs: number): Promise<number> {
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
    // Each lease is replaced by what it used when its hold ends: a second on, the whole limit again.
    await until(() => leases(key), (n) => n === 0);
    expect(await burst(limiters, key, 10, 60, T0 + 1000)).toBe(10);
  });

  test("two limiters never admit more than the limit in any 1000 ms, across second boundaries", async () => {
    const [a, b] = three();
    const key = freshKey();
    const limit = 10;
    const admitted: number[] = [];
    const send = async (lim: Limiter, n: number, at: number) => {
      const got = await Promise.all(Array.from({ length: n }, () => lim.acquire(key, limit, 1, at)));
      for (const g of got) for (let i = 0; i < g; i++) admitted.push(at);
    };
    const base = Math.floor(T0 / 1000) * 1000 + 5000;
    // An idle client bursts just before a second ends on one daemon and just after on the other
    // (counted per clock second, both bursts would pass whole)...
    await send(a, 20, base + 950);
    await send(b, 20, base + 1050);
    // ...then keeps asking on both every 37 ms for three seconds.
    for (let t = base + 1100; t < base + 4100; t += 37) {
      await send(a, 2, t);
      await send(b, 2, t);
    }
    const worst = Math.max(...admitted.map((t) => admitted.filter((u) => u > t - 1000 && u <= t).length));
    expect(worst).toBeLessThanOrEqual(limit);
    // And the limit is not starved: over the four seconds nearly four times the limit went through.
    expect(admitted.length).toBeGreaterThanOrEqual(3 * limit);
  });

  test("a client refused after a burst on one daemon finds its limit again a second later on another", async () => {
    const [a, b] = three();
    const key = freshKey();
    expect(await burst([a], key, 10, 11, T0)).toBe(10);
    expect(await b.acquire(key, 10, 1, T0 + 999)).toBe(0);
    // a's lease counted until a second past its hold; the report of what it used ends it sooner.
    await until(() => leases(key), (n) => n === 0);
    expect(await burst([b], key, 10, 11, T0 + 1000)).toBe(10);
  });

  test("what a limiter leased and did not use goes back when its hold ends", async () => {
    const [a, b] = three((limit) => limit / 2);
    const key = freshKey();
    // a leases a slice of 5 and uses 1 of it.
    expect(await a.acquire(key, 10, 1, T0)).toBe(1);
    await until(() => leases(key), (n) => n === 0);
    // b finds 1 used, not 5 taken: 9 left.
    expect(await b.acquire(key, 10, 10, T0 + 200)).toBe(9);
  });

  test("a wall clock stepped back an hour neither resets a limiter's window nor shuts the key for the hour", async () => {
    const budget = slidingRateBudget(dbs[0]);
    if (!budget) throw new Error("not PostgreSQL");
    const l = createClusterLimiter({ budget, log, clock: systemClock });
    const key = freshKey();
    expect(await l.acquire(key, 10, 20, { wallMs: T0, monoMs: 0 })).toBe(10);
    // The wall clock steps back an hour; the monotonic one goes on.
    expect(await l.acquire(key, 10, 1, { wallMs: T0 - 3_600_000 + 500, monoMs: 500 })).toBe(0);
    expect(await l.acquire(key, 10, 20, { wallMs: T0 - 3_600_000 + 1000, monoMs: 1000 })).toBe(10);
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

  test("rows of keys with nothing counting any more are deleted, by the database server's clock", async () => {
    const [a] = three();
    const key = freshKey();
    const past = Date.now() - 60_000;
    expect(await a.acquire(key, 5, 1, past)).toBe(1);
    expect(await rows(key)).toBe(1);
    // The lease is reported when its hold ends; then another limiter's call prunes.
    await until(() => leases(key), (n) => n === 0);
    expect(await rows(key)).toBe(1);
    const later = limiter(dbs[1], undefined, 0);
    expect(await later.acquire(freshKey(), 5, 1, T0)).toBe(1);
    await until(() => rows(key), (n) => n === 0);
    expect(await rows(key)).toBe(0);
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

  test("after a lease the database failed, leases are taken locally for a second without asking it again", async () => {
    const dead = openDatabase(testConfig(dir).database.url.replace(/\/[^/]+$/, "/no_such_database_here"));
    const budget = slidingRateBudget(dead);
    if (!budget) throw new Error("not PostgreSQL");
    let asked = 0;
    const counted = { ...budget, lease: (l: Parameters<typeof budget.lease>[0]) => (asked++, budget.lease(l)) };
    const clock = manualClock();
    // A long hold: no report of a lease's use is sent while the test runs, only leases.
    const l = createClusterLimiter({ budget: counted, log, clock, chunk: () => 1, holdMs: 60_000 });
    const key = freshKey();
    const at = (ms: number) => ({ wallMs: T0 + ms, monoMs: ms });
    expect(await l.acquire(key, 100, 1, at(0))).toBe(1);
    expect(asked).toBe(1);
    // Each request needs a lease of its own (slices of 1); within the pause it is taken from this
    // daemon's window alone.
    clock.advance(900);
    expect(await l.acquire(key, 100, 1, at(900))).toBe(1);
    expect(await l.acquire(key, 100, 1, at(950))).toBe(1);
    expect(asked).toBe(1);
    // Once the pause is over the database is asked again.
    clock.advance(200);
    expect(await l.acquire(key, 100, 1, at(1100))).toBe(1);
    expect(asked).toBe(2);
    await dead.destroy();
  });
});
