import type { Transaction } from "kysely";
import type { NetworkConfig } from "../../config/schema.ts";
import { serialize } from "../../db/primitives.ts";
import type { DB, PaymentWallet } from "../../db/schema.ts";
import type { Failure } from "../../lib/error-codes.ts";
import { MAX_INDEX } from "./derive-address.ts";
import type { WalletDerivers } from "./derivers.ts";
import { addWalletGapNotice, gapNoticeDue, walletGapNotice } from "./gap.ts";
import { unusedTail } from "./wallets.ts";

/** An address handed to an order: its wallet and index. */
export type Allocation = { walletId: string; index: number; address: string };

/**
 * Hands the wallet's next index to an order, inside the order's own transaction (the caller holds
 * the account's lock, createOrder): the index and the order commit together or not at all, so a
 * refused or failed request leaves no gap, and two requests (on any daemon) never get one index.
 * An index whose address already belongs to an order on the network — the same key put by another
 * account, or an address a client once gave for an order of its own — is passed over for the next:
 * an address is never handed to a second order. Raises the `wallet_gap` notice when the unused tail passes the gap limit.
 */
export async function allocateAddress(
  trx: Transaction<DB>,
  deps: { derivers: WalletDerivers },
  wallet: PaymentWallet,
  network: NetworkConfig,
  nowMs: number,
): Promise<Allocation | Failure<"WALLET_EXHAUSTED">> {
  const derive = deps.derivers.of(wallet, network);
  let index = Number(wallet.next_index);
  let address: string;
  for (;;) {
    if (index > MAX_INDEX) return { ok: false, code: "WALLET_EXHAUSTED" };
    address = derive(index);
    // Orders on one address are created one at a time, whichever account or wallet makes them.
    await serialize(trx, `order-address:${wallet.network}:${address}`);
    const taken = await trx.selectFrom("payments").select("id").where("network", "=", wallet.network).where("address", "=", address).limit(1).executeTakeFirst();
    if (!taken) break;
    index += 1;
  }
  const tail = unusedTail({ next_index: index + 1, last_paid_index: wallet.last_paid_index });
  const notice = gapNoticeDue(tail, Number(wallet.gap_limit), Number(wallet.gap_notice_tail));
  await trx
    .updateTable("payment_wallets")
    .set({ next_index: index + 1, updated_at: nowMs, ...(notice ? { gap_notice_tail: tail } : {}) })
    .where("id", "=", wallet.id)
    .execute();
  if (notice) await addWalletGapNotice(trx, walletGapNotice(wallet, tail, nowMs));
  return { walletId: wallet.id, index, address };
}
