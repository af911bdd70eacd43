import type { Transaction } from "kysely";
import type { Db } from "./database.ts";
import { isPostgres } from "./dialect/detect.ts";
import { type AdvisoryKey, sessionLocksPostgres } from "./dialect/postgres/advisory-locks.ts";
import { holdsEpoch, takeEpochStatement } from "./lead-epochs.ts";
import type { DB } from "./schema.ts";

/**
 * Who leads a network's follower when several daemons share one database (docs/operations.md): on
 * PostgreSQL the daemon holding a session advisory lock, on SQLite always this daemon (one daemon
 * per file). Every take-over takes a new fencing epoch (db/lead-epochs.ts), and the leader's
 * writes are fenced with it: a daemon that lost the lead without noticing (paused past the
 * take-over) has its writes refused by the database, whatever the timing.
 */
export type Lead = {
  /**
   * Takes the lead when no other daemon holds it, or confirms this daemon still holds it. Called
   * once per poll: a standby retries every poll interval. Never throws.
   */
  acquire(): Promise<boolean>;
  /** Whether this daemon leads now; false at once when the lock's connection drops. */
  held(): boolean;
  /**
   * Called first inside each of the leader's write transactions: throws LeadLost (and the
   * transaction rolls back) unless the lead's epoch is still the one this daemon took.
   */
  fence(trx: Transaction<DB>): Promise<void>;
};

/** A write refused because another daemon took the lead since this one took its epoch. */
export class LeadLost extends Error {
  constructor(readonly lead: string) {
    super(`${lead}: another daemon took the lead`);
  }
}

export type Leadership = {
  /** The lead of `network`'s follower. */
  lead(network: string): Lead;
  /** Gives up every lead (the lock connection ends). */
  close(): Promise<void>;
};

/** The lead when no other daemon can compete and nothing is fenced (a follower built by hand): always held. */
export const soleLead: Lead = { acquire: async () => true, held: () => true, fence: async () => {} };

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
 * connection (the followers it led stop at once and retry, as standbys, on their next poll). On
 * SQLite the lead is always this daemon's (one `serve` per file), fenced all the same: the daemon
 * takes a new epoch at its first poll, and its writes check it, as on PostgreSQL.
 */
export function createLeadership(deps: { db: Db; url: string; onLost: (e: unknown) => void }): Leadership {
  const { db } = deps;
  // One lead per network: the epoch a lead took lives in it.
  const leads = new Map<string, Lead>();
  const once = (network: string, make: () => Lead) => {
    let lead = leads.get(network);
    if (!lead) leads.set(network, (lead = make()));
    return lead;
  };
  if (!isPostgres(db)) {
    return {
      lead: (network) =>
        once(network, () => {
          const name = leadName(network);
          const takeEpoch = async () => epochOf(await takeEpochStatement(db, name).executeTakeFirstOrThrow());
          return fencedLead(name, { tryLock: async () => true, holds: () => true, takeEpoch }, deps.onLost);
        }),
      async close() {},
    };
  }
  // One report per trouble: a standby retries every poll, and an unreachable server would
  // otherwise log on each try. Reset once a lead is held again.
  let reported = false;
  const report = (e: unknown) => {
    if (reported) return;
    reported = true;
    deps.onLost(e);
  };
  const locks = sessionLocksPostgres(deps.url, report);
  return {
    lead: (network) =>
      once(network, () => {
        const key = followerLockKey(network);
        const name = leadName(network);
        // Taken on the lock's own session: it runs only while this daemon holds the lock, so a
        // daemon that lost the lock can never take an epoch after its successor's.
        const take = takeEpochStatement(db, name).compile();
        const lead = fencedLead(
          name,
          {
            tryLock: () => locks.tryLock(key),
            holds: () => locks.holds(key),
            takeEpoch: async () => epochOf((await locks.queryHolding<{ epoch: unknown }>(key, take.sql, take.parameters))[0]),
          },
          report,
        );
        return {
          ...lead,
          async acquire() {
            const ok = await lead.acquire();
            if (ok) reported = false;
            return ok;
          },
        };
      }),
    close: () => locks.close(),
  };
}

/** The `lead_epochs` row of a network's follower. */
export function leadName(network: string): string {
  return `follower:${network}`;
}

/** How a lead is held: the lock (always held on SQLite) and the statement that takes a new epoch. */
type LeadLock = { tryLock(): Promise<boolean>; holds(): boolean; takeEpoch(): Promise<number> };

function epochOf(row: { epoch: unknown } | undefined): number {
  const epoch = Number(row?.epoch);
  if (!Number.isSafeInteger(epoch)) throw new Error("no epoch taken");
  return epoch;
}

/**
 * A lead fenced by its epoch: a new one is taken whenever the lock is taken (not merely
 * confirmed), and forgotten when the lock drops or a fence finds it spent. `held()` is true only
 * with both the lock and an epoch.
 */
function fencedLead(name: string, lock: LeadLock, onError: (e: unknown) => void): Lead {
  let epoch: number | null = null;
  return {
    async acquire() {
      // Not held before this try: taking it now is a take-over (or a take after a drop).
      if (!lock.holds()) epoch = null;
      if (!(await lock.tryLock())) {
        epoch = null;
        return false;
      }
      if (epoch === null) {
        try {
          epoch = await lock.takeEpoch();
        } catch (e) {
          onError(e);
          return false;
        }
      }
      return true;
    },
    held: () => epoch !== null && lock.holds(),
    async fence(trx) {
      const mine = epoch;
      if (mine !== null && (await holdsEpoch(trx, name, mine))) return;
      // Spent: another daemon took the lead since. Should this daemon take the lock again, it
      // takes a new epoch first.
      if (epoch === mine) epoch = null;
      throw new LeadLost(name);
    },
  };
}
