import { lockOrder } from "../../db/lock-order.ts";

// The charges of settled calls waiting for the next flush, one entry per account and UTC day: the
// flush writes each as one change of the balance and one of the day's usage row, however many
// calls it sums.

/** What an account's calls of one UTC day charged and counted since the last flush. */
export type PendingCharge = { accountId: string; day: string; credits: number; calls: number };

/** Pending charges by account and day. */
export type ChargeBatch = Map<string, PendingCharge>;

/** Adds settled calls to the batch: `credits` charged, `calls` answered, on `day` (YYYY-MM-DD, UTC). */
export function addCharge(batch: ChargeBatch, accountId: string, day: string, credits: number, calls: number): void {
  const k = `${accountId}\n${day}`;
  const p = batch.get(k);
  if (p) {
    p.credits += credits;
    p.calls += calls;
  } else batch.set(k, { accountId, day, credits, calls });
}

/** Adds the charges of `from` to `into` (a batch whose write failed and what was settled since: the next flush writes both). */
export function mergeCharges(into: ChargeBatch, from: ChargeBatch): void {
  for (const p of from.values()) addCharge(into, p.accountId, p.day, p.credits, p.calls);
}

/** The credits a batch charges each account, over all its days. */
export function creditsByAccount(batch: ChargeBatch): Map<string, number> {
  const charged = new Map<string, number>();
  for (const p of batch.values()) charged.set(p.accountId, (charged.get(p.accountId) ?? 0) + p.credits);
  return charged;
}

/**
 * The batch in lock order (db/lock-order.ts) of its accounts, then days, the order settlements
 * take theirs in: the flush charges one account at a time, so the order is the caller's to give.
 */
export function chargesInLockOrder(batch: ChargeBatch): PendingCharge[] {
  return [...batch.values()].sort((x, y) => lockOrder(x.accountId, y.accountId) || lockOrder(x.day, y.day));
}
