import type { Executor } from "../../db/database.ts";
import type { PaymentWallet } from "../../db/schema.ts";
import { addNotices, type NewNotice } from "../../notices/notices.ts";

// The gap limit (docs/payments.md): a wallet restored from its seed phrase looks for payments
// address by address and stops after `gap limit` unused ones in a row (20 in most wallets). Orders
// that are never paid leave such runs; chainwatch never refuses an order or recycles an address for
// it, it tells the operator, who raises the gap limit of the wallet software holding the key.

/**
 * Whether handing out an index that leaves `tail` unused addresses calls for a `wallet_gap`
 * notice: when the tail first passes the wallet's gap limit, then each time it has doubled since
 * the last notice, so a long run is reported as it grows without a notice per order.
 */
export function gapNoticeDue(tail: number, gapLimit: number, lastNoticeTail: number): boolean {
  if (tail <= gapLimit) return false;
  return lastNoticeTail === 0 || tail >= 2 * lastNoticeTail;
}

/** The notice: which wallet, how far past its gap limit, and what to do. */
export function walletGapNotice(w: Pick<PaymentWallet, "account_id" | "network" | "fingerprint" | "gap_limit">, tail: number, nowMs: number): NewNotice {
  return {
    accountId: w.account_id,
    type: "wallet_gap",
    message:
      `Payment wallet ${w.fingerprint} on ${w.network} has handed out ${tail} addresses in a row that received nothing, past its gap limit of ${w.gap_limit}. ` +
      `A wallet restored from its seed phrase stops looking after its own gap limit (often 20) of unused addresses and will not show later payments: ` +
      `raise the gap limit in the wallet software that holds the private key to at least ${tail}. Orders are not refused and addresses are never reused.`,
    deliveryId: null,
    createdAt: nowMs,
  };
}

/** Writes the notice in the caller's transaction. */
export function addWalletGapNotice(db: Executor, notice: NewNotice): Promise<void> {
  return addNotices(db, [notice]);
}

/**
 * Records, in the ingest transaction, that the order at `index` of a wallet received a payment:
 * the wallet's unused tail now counts from the highest such index, and a later run past the gap
 * limit is reported afresh.
 */
export async function markIndexPaid(db: Executor, walletId: string, index: number, nowMs: number): Promise<void> {
  await db
    .updateTable("payment_wallets")
    .set({ last_paid_index: index, gap_notice_tail: 0, updated_at: nowMs })
    .where("id", "=", walletId)
    .where((eb) => eb.or([eb("last_paid_index", "is", null), eb("last_paid_index", "<", index)]))
    .execute();
}
