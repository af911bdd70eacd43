import type { Executor } from "../db/database.ts";
import { removed, type RemovedRows } from "../lib/removed-rows.ts";

/** Removes every notice of an account, in the caller's transaction (ops/purge-account.ts). */
export async function purgeAccountNotices(trx: Executor, accountId: string): Promise<RemovedRows> {
  return { notices: removed(await trx.deleteFrom("notices").where("account_id", "=", accountId).executeTakeFirst()) };
}
