import type { Executor } from "../db/database.ts";
import { removed, type RemovedRows } from "../lib/removed-rows.ts";

/**
 * Removes an account's usage series and the credits daemons set aside of it for /rpc, in the
 * caller's transaction (ops/purge-account.ts). A daemon holding such a lease finds it gone at its
 * next flush, as it finds a lease taken back.
 */
export async function purgeAccountBilling(trx: Executor, accountId: string): Promise<RemovedRows> {
  const usage = await trx.deleteFrom("usage_daily").where("account_id", "=", accountId).executeTakeFirst();
  const leases = await trx.deleteFrom("credit_leases").where("account_id", "=", accountId).executeTakeFirst();
  return { usage_daily: removed(usage), credit_leases: removed(leases) };
}
