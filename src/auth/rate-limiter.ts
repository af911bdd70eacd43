/**
 * A sliding 1000 ms window per key: a request is accepted when fewer than `limit` requests of
 * that key were accepted in the last second. Only accepted requests are remembered, so rejected
 * ones never push the window out. State is per process (one daemon per SQLite file).
 */
export type RateLimiter = { tryAcquire(key: string, limit: number, nowMs: number): boolean };

/** Accepted stamps of one key, in time order, from `head` on; the dead prefix is dropped in bulk. */
type Window = { stamps: number[]; head: number };

export function createSlidingWindowLimiter(windowMs = 1000): RateLimiter {
  const windows = new Map<string, Window>();
  return {
    tryAcquire(key, limit, nowMs) {
      let w = windows.get(key);
      if (!w) windows.set(key, (w = { stamps: [], head: 0 }));
      const { stamps } = w;
      // Stamps are appended in time order, so expired ones sit at the front. Moving a head index
      // instead of splicing keeps a call O(1) at thousands of calls a second (the /rpc limits).
      while (w.head < stamps.length && stamps[w.head] <= nowMs - windowMs) w.head++;
      if (w.head > 64 && w.head * 2 > stamps.length) {
        stamps.splice(0, w.head);
        w.head = 0;
      }
      if (stamps.length - w.head >= limit) return false;
      stamps.push(nowMs);
      return true;
    },
  };
}
