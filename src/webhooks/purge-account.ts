import type { Executor } from "../db/database.ts";
import { removed, type RemovedRows } from "../lib/removed-rows.ts";

/** Removes every webhook endpoint of an account and their health, in the caller's transaction (ops/purge-account.ts). */
export async function purgeAccountEndpoints(trx: Executor, accountId: string): Promise<RemovedRows> {
  const ids = trx.selectFrom("webhook_endpoints").select("id").where("account_id", "=", accountId);
  const health = await trx.deleteFrom("endpoint_health").where("endpoint_id", "in", ids).executeTakeFirst();
  const endpoints = await trx.deleteFrom("webhook_endpoints").where("account_id", "=", accountId).executeTakeFirst();
  return { endpoint_health: removed(health), webhook_endpoints: removed(endpoints) };
}
