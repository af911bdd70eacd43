import type { Executor } from "../db/database.ts";
import { removed, type RemovedRows } from "../lib/removed-rows.ts";

/**
 * Removes an account's API keys, monthly grants and the account itself, in the caller's
 * transaction (ops/purge-account.ts), after every other folder removed its rows (they refer to it).
 */
export async function purgeAccountRecord(trx: Executor, accountId: string): Promise<RemovedRows> {
  const keys = await trx.deleteFrom("api_keys").where("account_id", "=", accountId).executeTakeFirst();
  const grants = await trx.deleteFrom("credit_grants").where("account_id", "=", accountId).executeTakeFirst();
  const accounts = await trx.deleteFrom("accounts").where("id", "=", accountId).executeTakeFirst();
  return { api_keys: removed(keys), credit_grants: removed(grants), accounts: removed(accounts) };
}
