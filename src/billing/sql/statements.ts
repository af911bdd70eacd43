import type { CompiledQuery } from "kysely";

// The hot-path statements of billing (why hand-written: `src/db/statements.ts`): the credit
// charges taken off `accounts`' balances, `usage_daily` and `credit_leases`, and the reads of the
// free credits. What each does, here; each dialect's text in `sqlite.ts` and `postgres.ts` beside
// this file, which bind the same parameters, built here once for both.

/** Credits to take off one account's balance. */
export type AccountCharge = { accountId: string; credits: number };

/** What to add to an account's usage row of one day. */
export type UsageAddition = { accountId: string; credits: number; deliveries: number; events: number };

/** An account's balance and what every daemon has set aside of it. */
export type CreditsRow = { credits: number | string; leased: number | string };

/**
 * The hand-written statements of billing. Statements over a list take at most what their caller
 * chunks them to: SQLite caps bound parameters.
 */
export type BillingStatements = {
  /** Takes credits off an account's balance. */
  chargeAccount(accountId: string, credits: number, nowMs: number): CompiledQuery;
  /**
   * Takes credits off the balances of several accounts in one statement (a settlement batch's
   * charges); on PostgreSQL it locks their rows in account id order first, as every writer of
   * several accounts does, so two daemons settling the same accounts cannot deadlock.
   */
  chargeAccounts(rows: readonly AccountCharge[], nowMs: number): CompiledQuery;
  /** Adds to the usage rows of `day` (YYYY-MM-DD) of several accounts, creating them on first use. */
  addUsage(day: string, rows: readonly UsageAddition[]): CompiledQuery;
  /** Adds answered /rpc calls and their credits to an account's usage row of `day`. */
  addRpcUsage(accountId: string, day: string, credits: number, calls: number): CompiledQuery;
  /** An account's balance and every daemon's leases of it (no row: no such account). */
  readFreeCredits(accountId: string): CompiledQuery<CreditsRow>;
  /** What the /rpc credit meter reads of an account: balance, leases and the plan's `rpc_rps`. */
  readRpcAccount(accountId: string): CompiledQuery<CreditsRow & { rpc_rps: number }>;
  /** Writes a holder's lease of an account whole (creating it), renewed until `leaseUntil`. */
  writeLease(holder: string, accountId: string, credits: number, leaseUntil: number): CompiledQuery;
  /** Deletes a holder's lease of an account. */
  dropLease(holder: string, accountId: string): CompiledQuery;
  /** Deletes the leases that ran out before `nowMs`. */
  dropExpiredLeases(nowMs: number): CompiledQuery;
  /** Deletes every lease. */
  dropAllLeases(): CompiledQuery;
};

/**
 * What every daemon has set aside of the account `a`, in both dialects' SQL: summed by each check
 * of the free credits, here and in the delivery claim's (delivery/sql/).
 */
export const LEASED_OF_ACCOUNT = "(select coalesce(sum(l.credits), 0) from credit_leases as l where l.account_id = a.id)";

/** The parameters of a multi-row usage upsert: five a row (account, day, credits, deliveries, events). */
export function usageParams(day: string, rows: readonly UsageAddition[]): unknown[] {
  const params: unknown[] = [];
  for (const r of rows) params.push(r.accountId, day, r.credits, r.deliveries, r.events);
  return params;
}
