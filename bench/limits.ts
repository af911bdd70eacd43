// Cluster rate limit benchmark (not a test): `bun run bench:limits`.
//
// What admitting one request costs when the limit is shared by daemons on PostgreSQL (docs/operations.md),
// against the in-memory sliding window SQLite uses (the bare baseline), in one run:
//   - "count every admission": a bare upsert on a shared per-second row, one round trip per call;
//   - "lease 1, merged": the cluster limiter leasing one token per call, but requests waiting at
//     the same time share one upsert (what the daemon runs for limits under 100/s);
//   - "lease limit/50, merged": the cluster limiter as the daemon runs it for larger limits;
// each sequentially (latency per call) and with 16 callers at once (calls per second), and the
// accuracy of three limiters (three pools) spending one key's budget together.
// Time is simulated: every call of a "second" carries the same timestamp, `limit` calls a second,
// so each second's budget is spent exactly and the database work is what is measured.
// PostgreSQL: a database of its own (dropped at the end) on the server CHAINWATCH_TEST_DATABASE_URL
// names, or on a throwaway cluster (support/postgres.ts). The config is the daemon's defaults (a
// pool of 10), not the test suite's, whose settings are tuned for the suite's speed.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClusterLimiter } from "../src/auth/cluster-limiter.ts";
import { systemClock } from "../src/lib/clock.ts";
import { createLocalRateLimiter, type RateLimiter } from "../src/auth/rate-limiter.ts";
import { parseConfig } from "../src/config/load.ts";
import { openContext } from "../src/daemon.ts";
import { type Db, openDatabase } from "../src/db/database.ts";
import { type SharedRateBudget, type SlidingRateBudget, sharedRateBudget, slidingRateBudget } from "../src/db/primitives.ts";
import { silentLogger } from "../src/lib/log.ts";
import { type BenchCluster, createDatabase, dropDatabase, startCluster } from "./support/postgres.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONCURRENCY = 16;
const DATABASE = `bench_limits_${process.pid}`;
const dir = mkdtempSync(join(tmpdir(), "chainwatch-bench-limits-"));
const given = process.env.CHAINWATCH_TEST_DATABASE_URL;
let cluster: BenchCluster | null = null;

const dbs: Db[] = [];
let created = false;
try {
  if (!given) cluster = await startCluster();
  const server = given ?? (cluster as BenchCluster).url;
  const url = await createDatabase(server, DATABASE);
  created = true;
  await main(server, url);
} finally {
  for (const db of dbs) await db.destroy();
  if (given && created) await dropDatabase(given, DATABASE);
  cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
}

async function main(server: string, url: string): Promise<void> {
  const parsed = parseConfig({ server: { host: "127.0.0.1", port: 0 }, database: { url }, secrets: { master_key_file: `${dir}/master.key` } }, "bench:limits config");
  if (!parsed.ok) throw new Error(parsed.error);
  const config = parsed.config;
  const ctx = await openContext(config, { env: {} });
  dbs.push(ctx.db, openDatabase(config.database.url), openDatabase(config.database.url));
  const budgets = dbs.map((db) => sharedRateBudget(db) as SharedRateBudget);
  const sliding = dbs.map((db) => slidingRateBudget(db) as SlidingRateBudget);
  const T0 = Date.UTC(2030, 0, 1);
  let run = 0;

  /**
   * `limit` calls of one fresh key in each of `SECONDS` simulated seconds, `callers` at a time (a
   * second ends when its calls are answered); µs per call, calls per second, share admitted.
   */
  async function measure(limiters: RateLimiter[], limit: number, callers: number) {
    const key = `bench:${++run}`;
    const base = T0 + run * 1_000_000;
    let admitted = 0;
    const start = performance.now();
    for (let second = 0; second < SECONDS; second++) {
      const nowMs = base + second * 1000;
      let next = 0;
      await Promise.all(
        Array.from({ length: callers }, async (_, w) => {
          const lim = limiters[w % limiters.length];
          while (next++ < limit) {
            const got = lim.acquire(key, limit, 1, { wallMs: nowMs, monoMs: nowMs });
            // Awaited before the sum is read: `admitted += await …` would lose concurrent updates.
            const n = typeof got === "number" ? got : await got;
            admitted += n;
          }
        }),
      );
    }
    const ms = performance.now() - start;
    const total = SECONDS * limit;
    return { usPerCall: (ms * 1000) / total, perSecond: Math.round(total / (ms / 1000)), accuracy: admitted / total };
  }

  /** The bare shared counter: one upsert round trip per call, as `measure` paces them. */
  async function bareUpsert(callers: number, limit: number) {
    const key = `bench:${++run}`;
    const base = Math.floor((T0 + run * 1_000_000) / 1000);
    const start = performance.now();
    for (let second = 0; second < SECONDS; second++) {
      let next = 0;
      await Promise.all(
        Array.from({ length: callers }, async () => {
          while (next++ < limit) await budgets[0].lease(key, base + second, 1, limit);
        }),
      );
    }
    const ms = performance.now() - start;
    const total = SECONDS * limit;
    return { usPerCall: (ms * 1000) / total, perSecond: Math.round(total / (ms / 1000)), accuracy: 1 };
  }

  const memory = () => [createLocalRateLimiter()];
  const leaseOne = (n: number) => sliding.slice(0, n).map((budget) => createClusterLimiter({ budget, log: silentLogger, clock: systemClock, chunk: () => 1 }));
  const leaseSlices = (n: number) => sliding.slice(0, n).map((budget) => createClusterLimiter({ budget, log: silentLogger, clock: systemClock }));

  // Warm the pools and PostgreSQL's plan cache.
  await measure(leaseOne(3), 100, CONCURRENCY);

  const rows: [string, { usPerCall: number; perSecond: number; accuracy: number }][] = [];
  for (const limit of [100, 1000]) {
    rows.push([`limit ${limit}/s, in-memory window (SQLite), 1 caller`, await measure(memory(), limit, 1)]);
    rows.push([`limit ${limit}/s, count every admission (upsert per call), 1 caller`, await bareUpsert(1, limit)]);
    rows.push([`limit ${limit}/s, lease 1, merged, 1 caller`, await measure(leaseOne(1), limit, 1)]);
    rows.push([`limit ${limit}/s, lease limit/50, merged, 1 caller`, await measure(leaseSlices(1), limit, 1)]);
    rows.push([`limit ${limit}/s, count every admission (upsert per call), ${CONCURRENCY} callers`, await bareUpsert(CONCURRENCY, limit)]);
    rows.push([`limit ${limit}/s, lease 1, merged, ${CONCURRENCY} callers`, await measure(leaseOne(1), limit, CONCURRENCY)]);
    rows.push([`limit ${limit}/s, lease limit/50, merged, ${CONCURRENCY} callers`, await measure(leaseSlices(1), limit, CONCURRENCY)]);
    rows.push([`limit ${limit}/s, lease 1, merged, 3 limiters × ${CONCURRENCY} callers`, await measure(leaseOne(3), limit, 3 * CONCURRENCY)]);
    rows.push([`limit ${limit}/s, lease limit/50, merged, 3 limiters × ${CONCURRENCY} callers`, await measure(leaseSlices(3), limit, 3 * CONCURRENCY)]);
  }

  // Refused calls: once a second's budget is spent, refusals are answered from memory.
  const refusals = leaseSlices(3);
  const key = "bench:refused";
  await refusals[0].acquire(key, 10, 10, { wallMs: T0, monoMs: T0 });
  const t = performance.now();
  const N = 100_000;
  for (let i = 0; i < N; i++) await refusals[i % 3].acquire(key, 10, 1, { wallMs: T0, monoMs: T0 });
  const refusedUs = ((performance.now() - t) * 1000) / N;

  const bare = (limit: number) => (rows.find(([name]) => name.startsWith(`limit ${limit}/s, in-memory`)) as [string, { usPerCall: number }])[1].usPerCall;
  console.log(`cluster rate limits, ${SECONDS} simulated seconds per row; PostgreSQL ${server.replace(/\/\/[^@]*@/, "//")}`);
  console.log("case".padEnd(76), "µs/call".padStart(9), "calls/s".padStart(10), "× memory".padStart(9), "admitted".padStart(9));
  for (const [name, r] of rows) {
    const limit = Number(/limit (\d+)/.exec(name)?.[1]);
    console.log(
      name.padEnd(76),
      r.usPerCall.toFixed(2).padStart(9),
      String(r.perSecond).padStart(10),
      (r.usPerCall / bare(limit)).toFixed(1).padStart(9),
      `${(r.accuracy * 100).toFixed(1)} %`.padStart(9),
    );
  }
  console.log(`refused after the budget is spent (3 limiters, no database): ${refusedUs.toFixed(2)} µs/call`);
}
