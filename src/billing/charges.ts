import type { Executor } from "../db/database.ts";
import { lockOrder } from "../db/lock-order.ts";
import { billingStatements } from "./sql/dialects.ts";
import type { AccountCharge } from "./sql/statements.ts";
import { addUsage, type UsageAdd } from "./usage.ts";

// The credit charges: what delivered webhooks and answered /rpc calls cost, taken off the
// accounts' balances with the usage series counted, written here alone and always in the caller's
// transaction (a delivery's settlement, the /rpc meter's flush), so a charge is made exactly when
// what it pays for is recorded. Account and usage rows are taken in lock order (db/lock-order.ts):
// settlements take it here; the /rpc meter's flush passes its charges in it (chargesInLockOrder).

/** Accounts per charge: 2 parameters each on SQLite, far below its limit on parameters. */
const CHARGES_PER_STATEMENT = 500;

/** What a settlement batch charges one account: the credits of its successes and how many there were. */
export type DeliveryBill = { credits: number; deliveries: number };

/**
 * Charges settled deliveries in `trx`: each account's credits off its balance (one statement per
 * 500 accounts, in lock order), then the credits and deliveries added to today's usage rows.
 */
export async function chargeDeliveries(trx: Executor, bills: readonly (readonly [accountId: string, bill: DeliveryBill])[], nowMs: number): Promise<void> {
  if (bills.length === 0) return;
  const statements = billingStatements(trx);
  const charges: AccountCharge[] = bills.filter(([, b]) => b.credits > 0).map(([accountId, b]) => ({ accountId, credits: b.credits }));
  // Each statement locks its accounts in order; across statements the order holds only if they come sorted.
  charges.sort((a, z) => lockOrder(a.accountId, z.accountId));
  for (let at = 0; at < charges.length; at += CHARGES_PER_STATEMENT) {
    await trx.executeQuery(statements.chargeAccounts(charges.slice(at, at + CHARGES_PER_STATEMENT), nowMs));
  }
  await addUsage(trx, nowMs, new Map<string, UsageAdd>(bills));
}

/** What the answered /rpc calls of one account and UTC day (YYYY-MM-DD) charge. */
export type RpcCharge = { accountId: string; day: string; credits: number; calls: number };

/**
 * Charges answered /rpc calls in `trx`: each account's credits off its balance, and the credits
 * and calls added to its usage row of their day. `charges` in account id order, then day.
 */
export async function chargeRpcCalls(trx: Executor, charges: readonly RpcCharge[], nowMs: number): Promise<void> {
  const statements = billingStatements(trx);
  for (const p of charges) {
    if (p.credits > 0) await trx.executeQuery(statements.chargeAccount(p.accountId, p.credits, nowMs));
    await trx.executeQuery(statements.addRpcUsage(p.accountId, p.day, p.credits, p.calls));
  }
}
