import { purgeAccountRecord } from "../accounts/purge-account.ts";
import { purgeAccountBilling } from "../billing/purge-account.ts";
import { purgeAccountSignIns } from "../cabinet/sessions.ts";
import type { Db } from "../db/database.ts";
import type { Account } from "../db/schema.ts";
import { purgeAccountDeliveries } from "../delivery/purge-account.ts";
import type { Explained, Result } from "../lib/error-codes.ts";
import type { RemovedRows } from "../lib/removed-rows.ts";
import { purgeAccountNotices } from "../notices/purge-account.ts";
import { openOrderCount, purgeAccountPayments } from "../payments/purge-account.ts";
import { purgeAccountWatches } from "../watch/purge-account.ts";
import { purgeAccountEndpoints } from "../webhooks/purge-account.ts";

export type PurgeResult = Result<{ removed: RemovedRows }, Explained<"ACCOUNT_HAS_OPEN_ORDERS">>;

/**
 * `chainwatch accounts delete --purge` (docs/operations.md): removes every row of an account from
 * every table, each folder removing its own, in one transaction, so a failure leaves the account
 * whole. Refused while the account has open payment orders (a payer may still pay one) unless
 * `force`; the open-order count is read in the same transaction as the removal. Shared rows stay:
 * blocks, block events, the spent-output index and token decimals belong to no account. Returns
 * the rows removed per table, every table named (0 when it held none).
 */
export async function purgeAccount(db: Db, account: Account, opts: { force: boolean }): Promise<PurgeResult> {
  return db.transaction().execute(async (trx): Promise<PurgeResult> => {
    const open = await openOrderCount(trx, account.id);
    if (open > 0 && !opts.force) {
      const orders = open === 1 ? "1 open payment order" : `${open} open payment orders`;
      return { ok: false, code: "ACCOUNT_HAS_OPEN_ORDERS", error: `account ${account.name} has ${orders} (pending, seen, underpaid or aml_check)` };
    }
    // Rows that refer to others first: attempts before deliveries, deliveries before the
    // endpoints, everything before the account.
    const removed: RemovedRows = {
      ...(await purgeAccountDeliveries(trx, account.id)),
      ...(await purgeAccountEndpoints(trx, account.id)),
      ...(await purgeAccountNotices(trx, account.id)),
      ...(await purgeAccountWatches(trx, account.id)),
      ...(await purgeAccountPayments(trx, account.id)),
      ...(await purgeAccountBilling(trx, account.id)),
      ...(await purgeAccountSignIns(trx, account.id)),
      ...(await purgeAccountRecord(trx, account.id)),
    };
    return { ok: true, removed };
  });
}
