import type { Instant } from "../lib/clock.ts";

/**
 * Admits requests under a per-key limit of `limit` a second. `acquire` admits up to `n` requests
 * of `key` at `at` and answers how many: always the first ones, so a batch keeps its leading
 * calls. The window of one daemon is measured on the monotonic clock, so a step of the wall clock
 * neither empties it nor holds it shut; only the budget shared across daemons reads the wall
 * clock. In memory it answers at once; the cluster limiter (`cluster-limiter.ts`) may wait on the
 * database for a share of the budget, hence the promise.
 */
export type RateLimiter = { acquire(key: string, limit: number, n: number, at: Instant): number | Promise<number> };

/** The in-memory window over one clock's milliseconds: synchronous, and able to say how much room a key has left. */
export type SlidingWindowLimiter = {
  acquire(key: string, limit: number, n: number, nowMs: number): number;
  /** How many more requests of `key` the window would accept at `nowMs` (nothing recorded). */
  room(key: string, limit: number, nowMs: number): number;
  tryAcquire(key: string, limit: number, nowMs: number): boolean;
};

/** Accepted stamps of one key, in time order, from `head` on; the dead prefix is dropped in bulk. */
type Window = { stamps: number[]; head: number };

/**
 * A sliding 1000 ms window per key: a request is accepted when fewer than `limit` requests of
 * that key were accepted in the last second. Only accepted requests are remembered, so rejected
 * ones never push the window out. State is per process (one daemon per SQLite file).
 * `maxKeys` bounds the keys remembered when anyone may bring a new one (client addresses of a
 * public page): past it, the key remembered longest is forgotten first, which can only let that
 * key through sooner, never refuse another.
 */
export function createSlidingWindowLimiter(windowMs = 1000, maxKeys = Number.POSITIVE_INFINITY): SlidingWindowLimiter {
  const windows = new Map<string, Window>();
  const live = (key: string, nowMs: number): Window => {
    let w = windows.get(key);
    if (!w) {
      // Map order is insertion order: the first key is the one remembered longest.
      if (windows.size >= maxKeys) windows.delete(windows.keys().next().value as string);
      windows.set(key, (w = { stamps: [], head: 0 }));
    }
    const { stamps } = w;
    // Stamps are appended in time order, so expired ones sit at the front. Moving a head index
    // instead of splicing keeps a call O(1) at thousands of calls a second (the /rpc limits).
    while (w.head < stamps.length && stamps[w.head] <= nowMs - windowMs) w.head++;
    if (w.head > 64 && w.head * 2 > stamps.length) {
      stamps.splice(0, w.head);
      w.head = 0;
    }
    return w;
  };
  const acquire = (key: string, limit: number, n: number, nowMs: number): number => {
    const w = live(key, nowMs);
    const admitted = Math.max(0, Math.min(n, limit - (w.stamps.length - w.head)));
    // A caller that waited (the cluster limiter) may bring an older stamp: keeping the order
    // intact counts it a little longer, never shorter.
    const stamp = Math.max(nowMs, w.stamps.length > w.head ? w.stamps[w.stamps.length - 1] : nowMs);
    for (let i = 0; i < admitted; i++) w.stamps.push(stamp);
    return admitted;
  };
  return {
    acquire,
    room(key, limit, nowMs) {
      const w = live(key, nowMs);
      return Math.max(0, limit - (w.stamps.length - w.head));
    },
    tryAcquire: (key, limit, nowMs) => acquire(key, limit, 1, nowMs) === 1,
  };
}

/** The limiter of a daemon that counts alone (SQLite): its own window, on the monotonic clock. */
export function createLocalRateLimiter(window: SlidingWindowLimiter = createSlidingWindowLimiter()): RateLimiter {
  return { acquire: (key, limit, n, at) => window.acquire(key, limit, n, at.monoMs) };
}
