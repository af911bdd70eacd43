import type { SlidingLease, SlidingRateBudget } from "../db/primitives.ts";
import type { Clock, Instant } from "../lib/clock.ts";
import type { Logger } from "../lib/log.ts";
import { createSlidingWindowLimiter, type RateLimiter, type SlidingWindowLimiter } from "./rate-limiter.ts";

/** What this daemon holds of one key's shared budget. */
type Hold = {
  /** Tokens of the current lease not used yet, usable until `usableUntil` (monotonic ms). */
  tokens: number;
  usableUntil: number;
  /** Tokens the database counts as this daemon's current lease (what it was granted and carried). */
  reserved: number;
  /** Tokens used since the last lease was sent, and when the last one was (monotonic ms). */
  used: number;
  lastUse: number;
  /** The latest reading of a request of this key (the "now" of a late report). */
  lastSeen: Instant;
  /** The budget had no room before this (monotonic ms): refused from memory until then. */
  spentUntil: number;
  /** The lease on its way to the database, if any. */
  inflight: Promise<void> | null;
  /** The next lease, gathering the shortfall of requests that arrive while one is in flight. */
  queued: { want: number; done: Promise<void> } | null;
  /** Reports what the lease used once its tokens may no longer be used, if no lease does first. */
  timer: ReturnType<typeof setTimeout> | null;
};

export type ClusterLimiterDeps = {
  budget: SlidingRateBudget;
  log: Logger;
  /** Read when a lease fails, to leave the database alone for a moment after. */
  clock: Clock;
  /** How many tokens one lease asks for at least, given the limit (default: 1 per 50 of the limit). */
  chunk?: (limit: number) => number;
  /** How long a lease's tokens may be used (default 100 ms). */
  holdMs?: number;
  /** How often this daemon deletes the rows of keys with nothing counting any more (default 10 s). */
  pruneEveryMs?: number;
};

/** A request waits on at most this many leases; past that it takes what this daemon holds. */
const MAX_ROUNDS = 8;
const WINDOW_MS = 1000;
/**
 * After a lease the database failed, how long leases are taken from this daemon's own window
 * without asking it: a stalled database would otherwise hold every request for a lease wait of its
 * own (the connection and query bounds) before the request's own statements meet the same wall.
 */
const FAILED_PAUSE_MS = 1000;
/** How far apart daemons' wall clocks may be before one's entries are taken for a clock error. */
const CLOCK_SLACK_MS = 2000;

/**
 * The API's per-key and `/rpc`'s per-plan limits across daemons sharing one PostgreSQL database
 * (docs/operations.md). Two checks, both must pass: this daemon's own sliding window on the
 * monotonic clock (exactly as on SQLite) and the key's shared sliding budget
 * (`postgres/sliding-budget.ts`), which counts what every daemon took by wall-clock time, so no
 * 1000 ms, across second boundaries too, sees the cluster admit more than the limit.
 *
 * The budget is leased in slices (`chunk`): a request uses what this daemon holds without touching
 * the database and waits for a lease only when the slice is used up. A lease's tokens may be used
 * for `holdMs`; it counts until a second after that, unless the next lease, or a report sent when
 * the hold ends, replaces it by what was really used, counted until a second after the last use.
 * So a client refused after a burst finds its limit again a second later on any daemon. Once the
 * budget says it is spent, requests are refused from memory until its first entry may stop
 * counting (another daemon's lease: a second after it was taken, when its report may replace it).
 * Leases asked for while one is in flight are merged into the next.
 *
 * Daemons' wall clocks must agree (NTP). If the database fails, each daemon falls back to its own
 * window (logged once) rather than refuse every request, and leaves it alone for a second after
 * each failure.
 */
export function createClusterLimiter(deps: ClusterLimiterDeps): RateLimiter {
  const local: SlidingWindowLimiter = createSlidingWindowLimiter(WINDOW_MS);
  const chunkOf = deps.chunk ?? ((limit: number) => Math.max(1, Math.floor(limit / 50)));
  const holdMs = deps.holdMs ?? 100;
  const pruneEveryMs = deps.pruneEveryMs ?? 10_000;
  const holder = crypto.randomUUID();
  const holds = new Map<string, Hold>();
  let failing = false;
  /** Monotonic ms until which a failing database is not asked for leases. */
  let pausedUntil = 0;
  let prunedAt: number | null = null;

  const holdOf = (key: string): Hold => {
    let h = holds.get(key);
    if (h) return h;
    if (holds.size > 100_000) dropIdle();
    h = { tokens: 0, usableUntil: 0, reserved: 0, used: 0, lastUse: 0, lastSeen: { wallMs: 0, monoMs: 0 }, spentUntil: 0, inflight: null, queued: null, timer: null };
    holds.set(key, h);
    return h;
  };

  const idle = (h: Hold) => h.reserved === 0 && h.used === 0 && h.tokens === 0 && !h.inflight && !h.queued && !h.timer;
  const dropIdle = () => {
    for (const [key, h] of holds) if (idle(h)) holds.delete(key);
  };

  const pause = () => {
    pausedUntil = deps.clock.monotonic() + FAILED_PAUSE_MS;
  };

  const reachable = () => {
    if (!failing) return;
    failing = false;
    deps.log.info("cluster rate limit budget reachable again");
  };

  /**
   * Until when the tokens used since the last lease count, on the wall clock of `at`: a second
   * after the last use, measured back from `at` on the monotonic clock, so a step of the wall
   * clock since then neither stretches nor shortens it.
   */
  const settledUntil = (h: Hold, at: Instant) => Math.ceil(at.wallMs - (at.monoMs - h.lastUse)) + WINDOW_MS;

  /**
   * The lease statement at `at`: `want` more tokens of `limit` (0: a report alone), `carried` kept
   * from the current lease, and the `settled` tokens it used, counted until `settledUntil`.
   */
  const leaseAt = (h: Hold, key: string, at: Instant, t: { want: number; limit: number; carried: number; settled: number }): SlidingLease => ({
    key,
    holder,
    nowMs: at.wallMs,
    ...t,
    reserveUntilMs: at.wallMs + holdMs + WINDOW_MS,
    settledUntilMs: settledUntil(h, at),
    horizonMs: at.wallMs + holdMs + WINDOW_MS + CLOCK_SLACK_MS,
  });

  /** Sends a lease of `want` more tokens, reporting what the previous one used. */
  const sendLease = async (h: Hold, key: string, limit: number, want: number, at: Instant): Promise<void> => {
    if (h.tokens > 0 && at.monoMs > h.usableUntil) h.tokens = 0;
    const carried = h.tokens;
    const settled = h.used;
    h.used = 0;
    if (deps.clock.monotonic() < pausedUntil) return failOpen(h, key, want, settled, at);
    try {
      const got = await deps.budget.lease(leaseAt(h, key, at, { want, limit, carried, settled }));
      reachable();
      h.tokens += got.granted;
      h.reserved = carried + got.granted;
      // The database answers in wall-clock time; kept on the monotonic clock, a step cannot stretch it.
      if (got.granted < want) h.spentUntil = at.monoMs + Math.max(1, (got.nextFreeMs ?? 0) - at.wallMs);
    } catch (e) {
      pause();
      if (!failing) {
        failing = true;
        deps.log.error("cluster rate limit budget unreachable; limiting per daemon", { error: String(e) });
      }
      return failOpen(h, key, want, settled, at);
    }
    h.usableUntil = at.monoMs + holdMs;
    reportLater(h, key);
  };

  /** Fails open to this daemon's own window: a database hiccup should not refuse every request. */
  const failOpen = (h: Hold, key: string, want: number, settled: number, at: Instant) => {
    h.tokens += want;
    h.used += settled;
    h.usableUntil = at.monoMs + holdMs;
    reportLater(h, key);
  };

  /** When the hold ends with no lease after it, tells the database what the lease really used. */
  const reportLater = (h: Hold, key: string) => {
    if (h.timer) clearTimeout(h.timer);
    h.timer = setTimeout(() => {
      h.timer = null;
      // A lease on its way reports, and schedules the next report itself.
      if (h.inflight || h.queued) return;
      h.tokens = 0;
      if (h.reserved === 0 && h.used === 0) return void holds.delete(key);
      const settled = h.used;
      h.used = 0;
      h.reserved = 0;
      // Unanswered, the lease stops counting by itself a second after its hold: nothing to log,
      // but the requests waiting on this report take their leases locally for a while.
      const run: Promise<void> = deps.budget
        .lease(leaseAt(h, key, h.lastSeen, { want: 0, limit: 0, carried: 0, settled }))
        .then(reachable, pause)
        .finally(() => {
          if (h.inflight === run) h.inflight = null;
          if (idle(h)) holds.delete(key);
        });
      h.inflight = run;
    }, holdMs);
    h.timer.unref?.();
  };

  /** Joins the next lease of `h` with `short` tokens; resolves when it has been answered. */
  const nextLease = (h: Hold, key: string, limit: number, short: number, at: Instant): Promise<void> => {
    if (h.queued) {
      h.queued.want += short;
      return h.queued.done;
    }
    const queued = { want: short, done: Promise.resolve() };
    h.queued = queued;
    queued.done = (h.inflight ?? Promise.resolve()).then(() => {
      h.queued = null;
      // What the lease before brought may already cover the requests waiting on this one.
      const short = queued.want - h.tokens;
      if (short <= 0 || at.monoMs < h.spentUntil) return;
      const run: Promise<void> = sendLease(h, key, limit, Math.max(chunkOf(limit), short), at).finally(() => {
        if (h.inflight === run) h.inflight = null;
      });
      h.inflight = run;
      return run;
    });
    return queued.done;
  };

  const prune = (at: Instant) => {
    prunedAt ??= at.monoMs;
    if (at.monoMs - prunedAt < pruneEveryMs) return;
    prunedAt = at.monoMs;
    deps.budget.prune().catch((e) => deps.log.warn("cluster rate limit prune failed", { error: String(e) }));
  };

  /** Admits what this daemon holds, or answers null when a lease is needed first. */
  const fromHeld = (key: string, limit: number, n: number, at: Instant, last: boolean): number | null => {
    const room = Math.min(n, local.room(key, limit, at.monoMs));
    if (room === 0) return 0;
    const h = holdOf(key);
    h.lastSeen = at;
    if (h.tokens > 0 && at.monoMs > h.usableUntil) h.tokens = 0;
    if (h.tokens < room && !last && at.monoMs >= h.spentUntil) return null;
    const take = local.acquire(key, limit, Math.min(room, h.tokens), at.monoMs);
    h.tokens -= take;
    h.used += take;
    if (take > 0) h.lastUse = at.monoMs;
    return take;
  };

  const withLease = async (key: string, limit: number, n: number, at: Instant): Promise<number> => {
    for (let round = 1; ; round++) {
      const h = holdOf(key);
      await nextLease(h, key, limit, Math.min(n, local.room(key, limit, at.monoMs)) - h.tokens, at);
      const admitted = fromHeld(key, limit, n, at, round === MAX_ROUNDS);
      if (admitted !== null) return admitted;
    }
  };

  return {
    // Synchronous while this daemon holds enough of the budget: the common case adds no await.
    acquire(key, limit, n, at) {
      prune(at);
      return fromHeld(key, limit, n, at, false) ?? withLease(key, limit, n, at);
    },
  };
}
