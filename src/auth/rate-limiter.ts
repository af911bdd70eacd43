/**
 * A sliding 1000 ms window per key: a request is accepted when fewer than `limit` requests of
 * that key were accepted in the last second. Only accepted requests are remembered, so rejected
 * ones never push the window out. State is per process (one daemon per SQLite file).
 */
export type RateLimiter = { tryAcquire(key: string, limit: number, nowMs: number): boolean };

export function createSlidingWindowLimiter(windowMs = 1000): RateLimiter {
  const windows = new Map<string, number[]>();
  return {
    tryAcquire(key, limit, nowMs) {
      let stamps = windows.get(key);
      if (!stamps) windows.set(key, (stamps = []));
      // Stamps are appended in time order, so expired ones sit at the front.
      let expired = 0;
      while (expired < stamps.length && stamps[expired] <= nowMs - windowMs) expired++;
      if (expired > 0) stamps.splice(0, expired);
      if (stamps.length >= limit) return false;
      stamps.push(nowMs);
      return true;
    },
  };
}
