import type { Failure } from "../../lib/error-codes.ts";

/**
 * Why an account's view could not be read: the database away (the API's 503), or anything else
 * (logged; a 500).
 */
export type MeterFailure = Failure<"DATABASE_UNAVAILABLE" | "INTERNAL">;

/**
 * What the /rpc hot path knows of an account without touching the database: the credits this
 * daemon has set aside for it (its lease), what calls in flight hold of them and what answered
 * calls spent, and a hint of what a new lease could get. One mutable record per account, changed
 * in place by the meter's parts (./spend.ts, ./lease.ts, ./view.ts): a call allocates nothing.
 */
export type AccountMeter = {
  /** Always true: the record itself is the success of the meter's `account()`, so a call allocates no result. */
  ok: true;
  accountId: string;
  /** The plan's `rpc_rps` as last read: the calls-per-second budget /rpc's rate window applies. */
  rpcRps: number;
  /** Credits of the account set aside by this daemon and not charged yet: its row in `credit_leases`. */
  leased: number;
  /** Credits reserved by calls sent upstream and not settled yet. */
  held: number;
  /** Credits charged in memory and not yet written (pending or being flushed); part of `leased`. */
  unbilled: number;
  /**
   * What a new lease could take, as last seen: the balance less every daemon's leases and this
   * daemon's promises to deliveries. A hint, re-read at most a second after it is used, so an
   * account that has run out is refused without a database round trip.
   */
  free: number;
  /** Credits calls reserved since the last flush; an account with none gives its lease back at the flush. */
  reservedSinceFlush: number;
  /** Credits calls reserved in the last flush interval: a slice is at least that, so a busy account takes about one a flush. */
  pace: number;
  /** Slices taken since the last flush: each one twice the one before, so a burst needs few takes. */
  takesSinceFlush: number;
  /** When the view was last read (wall clock ms); NEVER_READ until the first read succeeds. */
  refreshedAt: number;
  /** Bumped whenever this daemon changes its lease (a take, a give-back): a view read before is stale. */
  leaseChanges: number;
  /** The read in flight, shared by every caller: null once read, else why it failed. */
  refreshing: Promise<MeterFailure | null> | null;
};

/** `refreshedAt` of an account whose view was never read. */
export const NEVER_READ = Number.NEGATIVE_INFINITY;

/** A record for an account the meter has not seen: nothing set aside, held or known yet. */
export function newAccountMeter(accountId: string): AccountMeter {
  return {
    ok: true,
    accountId,
    rpcRps: 0,
    leased: 0,
    held: 0,
    unbilled: 0,
    free: 0,
    reservedSinceFlush: 0,
    pace: 0,
    takesSinceFlush: 0,
    refreshedAt: NEVER_READ,
    leaseChanges: 0,
    refreshing: null,
  };
}

/** Whether the meter may forget the record: nothing of it is set aside, held or waiting to be written. */
export function isForgettable(a: AccountMeter): boolean {
  return a.leased === 0 && a.held === 0 && a.unbilled === 0;
}
