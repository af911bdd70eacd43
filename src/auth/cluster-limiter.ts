import { RATE_SLOT_MS, type SharedRateBudget } from "../db/primitives.ts";
import type { Instant } from "../lib/clock.ts";
import type { Logger } from "../lib/log.ts";
import { createSlidingWindowLimiter, type RateLimiter, type SlidingWindowLimiter } from "./rate-limiter.ts";

/**
 * What this daemon holds of one key's budget for one slot: `granted` leased from the shared row,
 * `used` by requests admitted here. `exhausted` once the row had no more to give.
 */
type Bucket = {
  slot: number;
  /** Whether this daemon has leased in this slot (the slot's row then exists). */
  leased: boolean;
  /** What this daemon was granted in its slot before and did not use, returned with its first lease. */
  giveBack: { slot: number; n: number } | null;
  /** Whether some of `granted` was taken without the database (it was unreachable): nothing to give back then. */
  failedOpen: boolean;
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
/** A lease counts what the slots of the second before its own were granted, and its own. */
const WINDOW_SLOTS = 1000 / RATE_SLOT_MS;

/**
 * The rate limits across daemons sharing one PostgreSQL database (docs/operations.md). Two checks, both
 * must pass: this daemon's own sliding window (exactly as on SQLite) and the key's shared budget,
 * counted in slots of `RATE_SLOT_MS` (50 ms): a slot grants what the limit leaves after the 20
 * slots before it and itself, so the cluster admits at most `limit` in any 1000 ms however the
 * requests fall. The count reaches back to a second before the current slot began, up to 50 ms
 * more than a second, so a client at full demand gets about 95 % of the limit. The budget is
 * leased in slices (`chunk`) spent only within their slot: a request uses what this daemon already
 * holds without touching the database and waits for a lease only when the slice is used up; once
 * the row says the slot is spent, the rest of that slot is refused locally. What a daemon leased
 * in a slot and did not use it hands back with its next lease. Leases asked for while one is in
 * flight are merged into the next.
 *
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

  const bucketOf = (key: string, slot: number): Bucket => {
    const b = buckets.get(key);
    // A request stamped just before a newer slot began uses the newer bucket: never reopen an old one.
    // A slot more than a second older is the wall clock stepped back: start again from there.
    if (b && b.slot >= slot && b.slot - slot <= WINDOW_SLOTS) return b;
    if (buckets.size > 100_000) buckets.clear();
    // A lease still on its way may yet add to the old slot: what it brings then stays counted there.
    const unused = b && b.leased && !b.failedOpen && !b.inflight && !b.queued ? b.granted - b.used : 0;
    const giveBack = b && unused > 0 ? { slot: b.slot, n: unused } : null;
    const fresh: Bucket = { slot, leased: false, giveBack, failedOpen: false, granted: 0, used: 0, exhausted: false, inflight: null, queued: null };
    buckets.set(key, fresh);
    return fresh;
  };

  const sendLease = async (b: Bucket, key: string, limit: number, want: number) => {
    const giveBack = b.giveBack ?? undefined;
    b.giveBack = null;
    try {
      const got = await deps.budget.leaseWindow({ key, slot: b.slot, since: b.slot - WINDOW_SLOTS, want, limit, fresh: !b.leased, giveBack });
      b.leased = true;
      b.granted += got;
      if (got < want) b.exhausted = true;
      if (failing) {
        failing = false;
        deps.log.info("cluster rate limit budget reachable again");
      }
    } catch (e) {
      // Fail open to this daemon's own window: a database hiccup should not refuse every request.
      b.granted += want;
      b.failedOpen = true;
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
  const fromHeld = (key: string, limit: number, n: number, at: Instant, last: boolean): number | null => {
    const room = Math.min(n, local.room(key, limit, at.monoMs));
    if (room === 0) return 0;
    const b = bucketOf(key, Math.floor(at.wallMs / RATE_SLOT_MS));
    const held = b.granted - b.used;
    if (held < room && !b.exhausted && !last) return null;
    const take = local.acquire(key, limit, Math.min(room, held), at.monoMs);
    b.used += take;
    return take;
  };

  const withLease = async (key: string, limit: number, n: number, at: Instant): Promise<number> => {
    for (let round = 1; ; round++) {
      const b = bucketOf(key, Math.floor(at.wallMs / RATE_SLOT_MS));
      await nextLease(b, key, limit, Math.min(n, local.room(key, limit, at.monoMs)) - (b.granted - b.used));
      const admitted = fromHeld(key, limit, n, at, round === MAX_ROUNDS);
      if (admitted !== null) return admitted;
    }
  };

  return {
    // Synchronous while this daemon holds enough of the budget: the common case adds no await.
    acquire(key, limit, n, at) {
      prune(at.wallMs);
      return fromHeld(key, limit, n, at, false) ?? withLease(key, limit, n, at);
    },
  };
}
