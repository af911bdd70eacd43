import type { SharedRateBudget } from "../db/primitives.ts";
import type { Logger } from "../lib/log.ts";
import { createSlidingWindowLimiter, type RateLimiter, type SlidingWindowLimiter } from "./rate-limiter.ts";

/**
 * What this daemon holds of one key's budget for one clock second: `granted` leased from the
 * shared row, `used` by requests admitted here. `exhausted` once the row had no more to give.
 */
type Bucket = {
  second: number;
  granted: number;
  used: number;
  exhausted: boolean;
  /** The lease on its way to the database, if any. */
  inflight: Promise<void> | null;
  /** The next lease, gathering the shortfall of requests that arrive while one is in flight. */
  queued: { want: number; done: Promise<void> } | null;
};

export type ClusterLimiterDeps = {
  budget: SharedRateBudget;
  log: Logger;
  /** How many tokens one lease asks for at least, given the limit (default: 1 per 50 of the limit). */
  chunk?: (limit: number) => number;
  /** How often this daemon deletes the rows of seconds that have passed (default 10 s). */
  pruneEveryMs?: number;
};

/** A request waits on at most this many leases; past that it takes what this daemon holds. */
const MAX_ROUNDS = 8;

/**
 * The rate limits across daemons sharing one PostgreSQL database (docs/operations.md). Two checks, both
 * must pass: this daemon's own sliding window (exactly as on SQLite, so one daemon alone behaves
 * exactly as before) and the key's shared budget for the current clock second, which no two
 * daemons can overspend. The budget is leased in slices (`chunk`): a request uses what this
 * daemon already holds without touching the database, and waits for one upsert only when the
 * slice is used up; once the row says the second is spent, the rest of that second is refused
 * locally. Leases asked for while one is in flight are merged into the next.
 *
 * Across daemons the limit counts per clock second: within each second of the clock the cluster
 * admits at most `limit` (less what a daemon leased and did not use: about a slice each).
 * Daemons' clocks must agree (NTP). If the database fails, each daemon falls back to its own
 * window (logged once) rather than refuse every request.
 */
export function createClusterLimiter(deps: ClusterLimiterDeps): RateLimiter {
  const local: SlidingWindowLimiter = createSlidingWindowLimiter();
  const chunkOf = deps.chunk ?? ((limit: number) => Math.max(1, Math.floor(limit / 50)));
  const pruneEveryMs = deps.pruneEveryMs ?? 10_000;
  const buckets = new Map<string, Bucket>();
  let failing = false;
  let prunedAt = 0;

  const bucketOf = (key: string, second: number): Bucket => {
    const b = buckets.get(key);
    // A request stamped just before a newer second began uses the newer bucket: never reopen an old one.
    if (b && b.second >= second) return b;
    if (buckets.size > 100_000) buckets.clear();
    const fresh: Bucket = { second, granted: 0, used: 0, exhausted: false, inflight: null, queued: null };
    buckets.set(key, fresh);
    return fresh;
  };

  const sendLease = async (b: Bucket, key: string, limit: number, want: number) => {
    try {
      const got = await deps.budget.lease(key, b.second, want, limit);
      b.granted += got;
      if (got < want) b.exhausted = true;
      if (failing) {
        failing = false;
        deps.log.info("cluster rate limit budget reachable again");
      }
    } catch (e) {
      // Fail open to this daemon's own window: a database hiccup should not refuse every request.
      b.granted += want;
      if (!failing) {
        failing = true;
        deps.log.error("cluster rate limit budget unreachable; limiting per daemon", { error: String(e) });
      }
    }
  };

  /** Joins the next lease of `b` with `short` tokens; resolves when it has been answered. */
  const nextLease = (b: Bucket, key: string, limit: number, short: number): Promise<void> => {
    if (b.queued) {
      b.queued.want += short;
      return b.queued.done;
    }
    const queued = { want: short, done: Promise.resolve() };
    b.queued = queued;
    queued.done = (b.inflight ?? Promise.resolve()).then(() => {
      b.queued = null;
      // What the lease before brought may already cover the requests waiting on this one.
      const short = queued.want - (b.granted - b.used);
      if (short <= 0 || b.exhausted) return;
      const run: Promise<void> = sendLease(b, key, limit, Math.max(chunkOf(limit), short)).finally(() => {
        if (b.inflight === run) b.inflight = null;
      });
      b.inflight = run;
      return run;
    });
    return queued.done;
  };

  const prune = (nowMs: number) => {
    if (nowMs - prunedAt < pruneEveryMs && nowMs >= prunedAt) return;
    prunedAt = nowMs;
    deps.budget.prune(Math.floor(nowMs / 1000) - 2).catch((e) => deps.log.warn("cluster rate limit prune failed", { error: String(e) }));
  };

  /** Admits what this daemon holds, or answers null when a lease is needed first. */
  const fromHeld = (key: string, limit: number, n: number, nowMs: number, last: boolean): number | null => {
    const room = Math.min(n, local.room(key, limit, nowMs));
    if (room === 0) return 0;
    const b = bucketOf(key, Math.floor(nowMs / 1000));
    const held = b.granted - b.used;
    if (held < room && !b.exhausted && !last) return null;
    const take = local.acquire(key, limit, Math.min(room, held), nowMs);
    b.used += take;
    return take;
  };

  const withLease = async (key: string, limit: number, n: number, nowMs: number): Promise<number> => {
    for (let round = 1; ; round++) {
      const b = bucketOf(key, Math.floor(nowMs / 1000));
      await nextLease(b, key, limit, Math.min(n, local.room(key, limit, nowMs)) - (b.granted - b.used));
      const admitted = fromHeld(key, limit, n, nowMs, round === MAX_ROUNDS);
      if (admitted !== null) return admitted;
    }
  };

  return {
    // Synchronous while this daemon holds enough of the budget: the common case adds no await.
    acquire(key, limit, n, nowMs) {
      prune(nowMs);
      return fromHeld(key, limit, n, nowMs, false) ?? withLease(key, limit, n, nowMs);
    },
  };
}
