import type { AccountMeter } from "./account-meter.ts";
import { spendable } from "./spend.ts";

// The arithmetic of an account's lease, the credits this daemon sets aside (billing/credit-leases.ts
// writes them): how much a take asks for, what it got, and how each flush renews or gives back
// the lease. Pure over the account's record; the meter does the writing.

/** Doublings of a slice within one flush interval at most: a burst is covered in a few takes, never by an overflow. */
const MAX_DOUBLINGS = 20;

/**
 * What the next take asks for: `slice`, or what the account's calls reserved in the last flush
 * interval when more, doubled for each slice taken since. Unspent at a flush is then less than the
 * last slice, which is below `slice` plus twice what the calls spent in the interval.
 */
export function sliceWanted(a: AccountMeter, slice: number): number {
  return Math.max(slice, a.pace) * 2 ** Math.min(a.takesSinceFlush, MAX_DOUBLINGS);
}

/**
 * What a take for a call of `cost` asks the database for: at least the shortfall (`need`), at most
 * a slice (`want`, never less than `need`); null when what is set aside covers the call already.
 */
export function takeAsk(a: AccountMeter, cost: number, slice: number): { need: number; want: number } | null {
  const short = cost - spendable(a);
  if (short <= 0) return null;
  return { need: short, want: Math.max(short, sliceWanted(a, slice)) };
}

/** Records what a take got: `taken` joins the lease, and the free credits it saw less that are the new hint. */
export function applyTake(a: AccountMeter, got: { taken: number; free: number }): void {
  a.leased += got.taken;
  a.free = got.free - got.taken;
  a.leaseChanges++;
  if (got.taken > 0) a.takesSinceFlush++;
}

/** What one flush changed of an account's lease in memory, to be written (or undone when the write fails). */
export type LeaseRenewal = { a: AccountMeter; charged: number; gaveBack: number };

/**
 * Starts a new flush interval for every account (what its calls reserved in the last one becomes
 * its pace) and renews each lease: what was `charged` leaves it, and an account no call used in
 * the interval, or every one when `giveBackAll`, gives back what is neither held nor unbilled.
 * Applied in memory at once, so no call can reserve credits on their way back. Answers the leases
 * to write: every one this daemon holds, or that was charged.
 */
export function renewLeases(accounts: Iterable<AccountMeter>, charged: ReadonlyMap<string, number>, giveBackAll: boolean): LeaseRenewal[] {
  const renewals: LeaseRenewal[] = [];
  for (const a of accounts) {
    const reserved = a.reservedSinceFlush;
    a.pace = reserved;
    a.reservedSinceFlush = 0;
    a.takesSinceFlush = 0;
    const c = charged.get(a.accountId) ?? 0;
    if (a.leased === 0 && c === 0) continue;
    const gaveBack = giveBackAll || (reserved === 0 && a.held === 0) ? Math.max(0, spendable(a)) : 0;
    a.leased -= c + gaveBack;
    a.unbilled -= c;
    // What goes back is free again (what was charged left the balance and the lease alike):
    // the view must say so, or the next call is refused until the view is read afresh.
    a.free += gaveBack;
    if (gaveBack > 0) a.leaseChanges++;
    renewals.push({ a, charged: c, gaveBack });
  }
  return renewals;
}

/** Undoes renewals whose write failed: the charges wait for the next flush, the leases stay. */
export function undoRenewals(renewals: readonly LeaseRenewal[]): void {
  for (const { a, charged, gaveBack } of renewals) {
    a.leased += charged + gaveBack;
    a.unbilled += charged;
    a.free -= gaveBack;
  }
}
