import type { Db } from "../db/database.ts";
import type { Clock } from "../lib/clock.ts";
import type { MaybePromise } from "../lib/maybe-promise.ts";
import { utcDayCache } from "../lib/time.ts";
import { type AccountSnapshot, accountSnapshot } from "./accounts.ts";

/** Account snapshots (GET /v1/account) served from memory for up to `ttlMs`: a cached one at once, a promise only when it reads the database. */
export type SnapshotCache = {
  get(accountId: string): MaybePromise<AccountSnapshot>;
  /** Drops an account's snapshot after this process changed it (a watch added or deleted). */
  invalidate(accountId: string): void;
};

/**
 * GET /v1/account is what clients poll; one SQLite read per call would cost more than the rest of
 * the signed request together. A snapshot is at most `ttlMs` old: the same freshness the API key
 * cache gives to what the CLI writes from another process, and the daemon's own watch changes
 * invalidate it at once, so a client always sees its own adds and deletes.
 */
export function createSnapshotCache(deps: { db: Db; clock: Clock; ttlMs?: number }): SnapshotCache {
  const ttl = deps.ttlMs ?? 1000;
  // A snapshot counts the usage of one UTC day (the wall clock's): good while that is still the day,
  // and for `ttlMs` of the monotonic clock.
  const today = utcDayCache();
  const cache = new Map<string, { snapshot: AccountSnapshot; day: string; expiresAt: number }>();
  const load = async (accountId: string, day: string, now: number): Promise<AccountSnapshot> => {
    const snapshot = await accountSnapshot(deps.db, accountId, day);
    if (cache.size > 100_000) cache.clear();
    cache.set(accountId, { snapshot, day, expiresAt: now + ttl });
    return snapshot;
  };
  return {
    get(accountId) {
      const day = today(deps.clock.now());
      const now = deps.clock.monotonic();
      const hit = cache.get(accountId);
      if (hit && hit.expiresAt > now && hit.day === day) return hit.snapshot;
      return load(accountId, day, now);
    },
    invalidate(accountId) {
      cache.delete(accountId);
    },
  };
}
