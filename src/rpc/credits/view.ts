import type { CreditsRow } from "../../billing/credit-leases.ts";
import { type AccountMeter, NEVER_READ } from "./account-meter.ts";

// The account's view the hot path decides on: the plan's calls-per-second budget (`rpc_rps`) and
// the hint of what a new lease could take, read from the database at most once a `refreshMs` while
// calls are served from what was read before.

/** What the meter reads of an account: its balance, every daemon's leases of it and its plan's `rpc_rps`. */
export type ViewRow = CreditsRow & { rpc_rps: number | string };

/**
 * Takes a row read into the view. `leaseChangesBefore` is the record's `leaseChanges` when the read
 * began: a take or a give-back of this daemon's lease meanwhile already set `free` from what it knew,
 * and the row, read before it, would undo that (and refuse calls the credits can pay). `promised`:
 * the credits this daemon has promised to webhook deliveries in flight.
 */
export function applyViewRow(a: AccountMeter, row: ViewRow, leaseChangesBefore: number, promised: number, nowMs: number): void {
  a.rpcRps = Number(row.rpc_rps);
  if (a.leaseChanges === leaseChangesBefore) a.free = Number(row.credits) - Number(row.leased) - promised;
  a.refreshedAt = nowMs;
}

/** What the view asks for at `nowMs`: a read before the first call (`first`), a read in the background (`stale`), or none. */
export function viewNeeds(a: AccountMeter, nowMs: number, refreshMs: number): "first" | "stale" | "none" {
  if (a.refreshedAt === NEVER_READ) return "first";
  return !a.refreshing && nowMs - a.refreshedAt >= refreshMs ? "stale" : "none";
}
