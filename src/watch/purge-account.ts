import type { Executor } from "../db/database.ts";
import { removed, type RemovedRows } from "../lib/removed-rows.ts";

/**
 * Removes an account's watches (and their count), the events stored for it and its block
 * subscriptions, in the caller's transaction (ops/purge-account.ts). Block events themselves are shared by every account
 * watching their network (account `*`) and stay.
 */
export async function purgeAccountWatches(trx: Executor, accountId: string): Promise<RemovedRows> {
  const events = await trx.deleteFrom("events").where("account_id", "=", accountId).executeTakeFirst();
  const subscriptions = await trx.deleteFrom("block_subscriptions").where("account_id", "=", accountId).executeTakeFirst();
  const watches = await trx.deleteFrom("watches").where("account_id", "=", accountId).executeTakeFirst();
  const counts = await trx.deleteFrom("watch_counts").where("account_id", "=", accountId).executeTakeFirst();
  return { events: removed(events), block_subscriptions: removed(subscriptions), watches: removed(watches), watch_counts: removed(counts) };
}
