import type { Executor } from "../db/database.ts";
import { removed, type RemovedRows } from "../lib/removed-rows.ts";

/** Removes every delivery of an account, their bodies and their attempt log, in the caller's transaction (ops/purge-account.ts). */
export async function purgeAccountDeliveries(trx: Executor, accountId: string): Promise<RemovedRows> {
  const ids = trx.selectFrom("deliveries").select("id").where("account_id", "=", accountId);
  const attempts = await trx.deleteFrom("delivery_attempts").where("delivery_id", "in", ids).executeTakeFirst();
  const bodies = await trx.deleteFrom("delivery_bodies").where("delivery_id", "in", ids).executeTakeFirst();
  const deliveries = await trx.deleteFrom("deliveries").where("account_id", "=", accountId).executeTakeFirst();
  return { delivery_attempts: removed(attempts), delivery_bodies: removed(bodies), deliveries: removed(deliveries) };
}
