import { compiled, textPerCount } from "../../db/dialect/compiled.ts";
import { rowsOf } from "../../db/dialect/sqlite/placeholders.ts";
import { type AccountCharge, type BillingStatements, LEASED_OF_ACCOUNT, usageParams } from "./statements.ts";

// The statements of billing in SQLite's SQL (what each does: statements.ts).

const CHARGE = "update accounts set credits = credits - ?, updated_at = ? where id = ?";
// No row locks to order: the settlement's write transaction runs alone.
const CHARGE_MANY = textPerCount(
  (n) => `update accounts set credits = accounts.credits - c.column2, updated_at = ? from (values ${rowsOf(n, 2)}) as c where accounts.id = c.column1`,
);

const USAGE = textPerCount(
  (n) => `insert into usage_daily (account_id, day, credits, deliveries, events) values ${rowsOf(n, 5)}
on conflict (account_id, day) do update set credits = usage_daily.credits + excluded.credits,
  deliveries = usage_daily.deliveries + excluded.deliveries, events = usage_daily.events + excluded.events`,
);
const RPC_USAGE = `insert into usage_daily (account_id, day, credits, deliveries, events, rpc_calls) values (?, ?, ?, 0, 0, ?)
on conflict (account_id, day) do update set credits = usage_daily.credits + excluded.credits, rpc_calls = usage_daily.rpc_calls + excluded.rpc_calls`;

const READ_FREE = `select a.credits, ${LEASED_OF_ACCOUNT} as leased from accounts as a where a.id = ?`;
const READ_RPC_ACCOUNT = `select a.credits, ${LEASED_OF_ACCOUNT} as leased, p.rpc_rps from accounts as a join plans as p on p.name = a.plan where a.id = ?`;
const WRITE_LEASE = `insert into credit_leases (holder, account_id, credits, lease_until) values (?, ?, ?, ?)
on conflict (holder, account_id) do update set credits = excluded.credits, lease_until = excluded.lease_until`;
const DROP_LEASE = "delete from credit_leases where holder = ? and account_id = ?";
const DROP_EXPIRED_LEASES = "delete from credit_leases where lease_until < ?";
const DROP_ALL_LEASES = "delete from credit_leases";

/** The time, then each account and its credits: the VALUES list of CHARGE_MANY. */
function chargeParams(rows: readonly AccountCharge[], nowMs: number): unknown[] {
  const params: unknown[] = [nowMs];
  for (const r of rows) params.push(r.accountId, r.credits);
  return params;
}

export const sqliteBillingStatements: BillingStatements = {
  chargeAccount: (accountId, credits, nowMs) => compiled(CHARGE, [credits, nowMs, accountId]),
  chargeAccounts: (rows, nowMs) => compiled(CHARGE_MANY(rows.length), chargeParams(rows, nowMs)),
  addUsage: (day, rows) => compiled(USAGE(rows.length), usageParams(day, rows)),
  addRpcUsage: (accountId, day, credits, calls) => compiled(RPC_USAGE, [accountId, day, credits, calls]),
  readFreeCredits: (accountId) => compiled(READ_FREE, [accountId]),
  readRpcAccount: (accountId) => compiled(READ_RPC_ACCOUNT, [accountId]),
  writeLease: (holder, accountId, credits, leaseUntil) => compiled(WRITE_LEASE, [holder, accountId, credits, leaseUntil]),
  dropLease: (holder, accountId) => compiled(DROP_LEASE, [holder, accountId]),
  dropExpiredLeases: (nowMs) => compiled(DROP_EXPIRED_LEASES, [nowMs]),
  dropAllLeases: () => compiled(DROP_ALL_LEASES, []),
};
