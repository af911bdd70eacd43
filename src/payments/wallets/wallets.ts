import type { Executor } from "../../db/database.ts";
import type { PaymentWallet } from "../../db/schema.ts";
import { rfc3339 } from "../../lib/time.ts";
import type { WalletKind } from "./extended-key.ts";

// The `payment_wallets` table (written by this folder only): the account's active wallet per
// network, and the wallets it removed or replaced, kept so a key put back resumes its indices.

/** A wallet as the API, the CLI and the cabinet show it; never its key. */
export type WalletView = {
  network: string;
  kind: WalletKind;
  fingerprint: string;
  next_index: number;
  gap_limit: number;
  unused_tail: number;
  created_at: string;
};

/** The indices handed out after the last one that received anything (all of them while none has). */
export function unusedTail(w: Pick<PaymentWallet, "next_index" | "last_paid_index">): number {
  const lastPaid = w.last_paid_index === null ? -1 : Number(w.last_paid_index);
  return Math.max(0, Number(w.next_index) - lastPaid - 1);
}

export function walletView(w: PaymentWallet): WalletView {
  return {
    network: w.network,
    kind: w.kind as WalletKind,
    fingerprint: w.fingerprint,
    next_index: Number(w.next_index),
    gap_limit: Number(w.gap_limit),
    unused_tail: unusedTail(w),
    created_at: rfc3339(Number(w.created_at)),
  };
}

/** The account's wallet on a network, if it has one. */
export function activeWallet(db: Executor, accountId: string, network: string): Promise<PaymentWallet | undefined> {
  return db
    .selectFrom("payment_wallets")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("network", "=", network)
    .where("active", "=", 1)
    .executeTakeFirst();
}

/** GET /v1/payments/wallets: the account's wallets, one per network, by network. */
export async function listWallets(deps: { db: Executor }, accountId: string): Promise<{ wallets: WalletView[] }> {
  const rows = await deps.db.selectFrom("payment_wallets").selectAll().where("account_id", "=", accountId).where("active", "=", 1).orderBy("network").execute();
  return { wallets: rows.map(walletView) };
}

/** The wallet of this key on the network, active or not: a key put back is found here. */
export function walletOfKey(db: Executor, accountId: string, network: string, keyId: string): Promise<PaymentWallet | undefined> {
  return db
    .selectFrom("payment_wallets")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("network", "=", network)
    .where("key_id", "=", keyId)
    .executeTakeFirst();
}
