import type { Db } from "./database.ts";
import { isPostgres } from "./dialect/detect.ts";
import { type AdvisoryKey, sessionLocksPostgres } from "./dialect/postgres/advisory-locks.ts";

/**
 * Who leads a network's follower when several daemons share one database (docs/operations.md): on
 * PostgreSQL the daemon holding a session advisory lock, on SQLite always this daemon (one daemon
 * per file).
 */
export type Lead = {
  /**
   * Takes the lead when no other daemon holds it, or confirms this daemon still holds it. Called
   * once per poll: a standby retries every poll interval. Never throws.
   */
  acquire(): Promise<boolean>;
  /** Whether this daemon leads now; false at once when the lock's connection drops. */
  held(): boolean;
};

export type Leadership = {
  /** The lead of `network`'s follower. */
  lead(network: string): Lead;
  /** Gives up every lead (the lock connection ends). */
  close(): Promise<void>;
};

/** The lead when no other daemon can compete: always held. */
export const soleLead: Lead = { acquire: async () => true, held: () => true };

/** The first half of every follower lock key: "cwld" in ASCII. */
export const FOLLOWER_LOCK_NAMESPACE = 0x63776c64;

/**
 * The advisory lock key of a network's follower: a fixed namespace for follower leadership,
 * 0x63776c64 ("cwld"), and the CRC-32 of the network slug's UTF-8 bytes as a signed int4. Stable
 * across versions and machines, so daemons of different builds agree. Two slugs with the same
 * CRC-32 would share one lock: one daemon would then lead both, which is still correct.
 */
export function followerLockKey(network: string): AdvisoryKey {
  return [FOLLOWER_LOCK_NAMESPACE, Bun.hash.crc32(network) | 0];
}

/**
 * One lock connection per daemon, shared by its followers. `onLost` hears a failed or dropped lock
 * connection (the followers it led stop at once and retry, as standbys, on their next poll).
 */
export function createLeadership(deps: { db: Db; url: string; onLost: (e: unknown) => void }): Leadership {
  if (!isPostgres(deps.db)) return { lead: () => soleLead, async close() {} };
  // One report per trouble: a standby retries every poll, and an unreachable server would
  // otherwise log on each try. Reset once a lead is held again.
  let reported = false;
  const locks = sessionLocksPostgres(deps.url, (e) => {
    if (reported) return;
    reported = true;
    deps.onLost(e);
  });
  return {
    lead(network) {
      const key = followerLockKey(network);
      return {
        async acquire() {
          const ok = await locks.tryLock(key);
          if (ok) reported = false;
          return ok;
        },
        held: () => locks.holds(key),
      };
    },
    close: () => locks.close(),
  };
}
