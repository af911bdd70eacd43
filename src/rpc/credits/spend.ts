import type { AccountMeter } from "./account-meter.ts";

// The in-memory spend of an account's lease: a call holds its price from what is set aside, and its
// settlement releases the hold and charges what the node answered with a result. Nothing here
// touches the database; the charges reach it at the next flush (./pending-charges.ts).

/** Credits set aside and neither held by a call in flight nor charged yet. */
export function spendable(a: AccountMeter): number {
  return a.leased - a.held - a.unbilled;
}

/** Holds `cost` credits for a call, counted toward the pace of the flush interval. */
export function hold(a: AccountMeter, cost: number): void {
  a.held += cost;
  a.reservedSinceFlush += cost;
}

/**
 * How a reservation of `cost` goes from what is set aside: `held` at once (a call costing nothing
 * holds nothing), `refused` when even the free-credit hint says no lease could cover it (no
 * database round trip), else `take`: another slice must be set aside first.
 */
export type Reservation = "held" | "refused" | "take";

/** Reserves `cost` from what is set aside when it covers it (held); else says whether a take could help. */
export function reserveFromLease(a: AccountMeter, cost: number): Reservation {
  if (cost === 0) return "held";
  const left = spendable(a);
  if (left >= cost) {
    hold(a, cost);
    return "held";
  }
  return a.free < cost - left ? "refused" : "take";
}

/** Releases `held` credits of settled calls and charges `charged` of them in memory. */
export function releaseAndCharge(a: AccountMeter, held: number, charged: number): void {
  a.held -= held;
  a.unbilled += charged;
}
