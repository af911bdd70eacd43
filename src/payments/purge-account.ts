import type { Executor } from "../db/database.ts";
import { removed, type RemovedRows } from "../lib/removed-rows.ts";
import type { PaymentStatus } from "./lifecycle.ts";

/** The states an order is still open in: it can still be paid or screened. */
const OPEN: PaymentStatus[] = ["pending", "seen", "underpaid", "aml_check"];

/** How many of an account's payment orders are open (not paid, failed or expired). */
export async function openOrderCount(db: Executor, accountId: string): Promise<number> {
  const row = await db
    .selectFrom("payments")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("account_id", "=", accountId)
    .where("status", "in", OPEN)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Removes an account's payment orders with their transfers, mempool sightings and screening jobs,
 * and its payment wallets, in the caller's transaction (ops/purge-account.ts).
 */
export async function purgeAccountPayments(trx: Executor, accountId: string): Promise<RemovedRows> {
  const ids = trx.selectFrom("payments").select("id").where("account_id", "=", accountId);
  const transfers = await trx.deleteFrom("payment_transfers").where("payment_id", "in", ids).executeTakeFirst();
  const mempool = await trx.deleteFrom("mempool_transfers").where("payment_id", "in", ids).executeTakeFirst();
  const aml = await trx.deleteFrom("aml_jobs").where("payment_id", "in", ids).executeTakeFirst();
  const payments = await trx.deleteFrom("payments").where("account_id", "=", accountId).executeTakeFirst();
  const wallets = await trx.deleteFrom("payment_wallets").where("account_id", "=", accountId).executeTakeFirst();
  return {
    payment_transfers: removed(transfers),
    mempool_transfers: removed(mempool),
    aml_jobs: removed(aml),
    payments: removed(payments),
    payment_wallets: removed(wallets),
  };
}
