import type { ClaimedDelivery } from "./claim.ts";

// Between claim and settle a row's price is promised, not yet charged.

/**
 * Credits promised to claimed rows until their outcome is written, so concurrent sends of one
 * account never overspend it: a claim subtracts what is held from the balance it reads, and a
 * success is charged by the transaction that records it, when the hold is freed. /rpc's meter
 * subtracts them too before it sets credits aside (billing/credit-leases.ts).
 */
export type CreditReservations = {
  /** Promises a claimed row's price. */
  hold(d: Pick<ClaimedDelivery, "account_id" | "price">): void;
  /** Ends the promise: the row was settled (and charged if it succeeded), or not sent after all. */
  free(d: Pick<ClaimedDelivery, "account_id" | "price">): void;
  /** Held credits per account, as claimDueDeliveries reads them. */
  readonly byAccount: ReadonlyMap<string, number>;
};

export function createCreditReservations(): CreditReservations {
  const held = new Map<string, number>();
  const add = (d: Pick<ClaimedDelivery, "account_id" | "price">, sign: 1 | -1) => {
    if (d.price === 0) return;
    const left = (held.get(d.account_id) ?? 0) + sign * d.price;
    if (left > 0) held.set(d.account_id, left);
    else held.delete(d.account_id);
  };
  return { hold: (d) => add(d, 1), free: (d) => add(d, -1), byAccount: held };
}
