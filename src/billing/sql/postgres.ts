import { textPerCount } from "../../db/dialect/compiled.ts";
import { rowsOf } from "../../db/dialect/postgres/placeholders.ts";
import { preparedQuery } from "../../db/dialect/postgres/prepared.ts";
import { type BillingStatements, LEASED_OF_ACCOUNT, usageParams } from "./statements.ts";

// The statements of billing in PostgreSQL's SQL (what each does: statements.ts), each a named
// prepared statement on every connection.

const CHARGE = "update accounts set credits = credits - $1, updated_at = $2 where id = $3";
// One text for any number of accounts (arrays, not a placeholder per row), so it is prepared once.
// The locking CTE takes the rows in id order before any is updated in whatever order the join
// yields them: settlements of several daemons lock shared accounts in one order. It locks as the
// update does (`for no key update`, as lockAccount): a stronger lock would also hold up the
// foreign key checks of a transaction writing rows that name the account. An ingest that counted
// its events in the usage row and then saves an order waits on that check while the settlement
// waits on its usage row: a deadlock.
const CHARGE_MANY = `with c(id, credits) as (select * from unnest($2::text[], $3::bigint[])),
l as materialized (select a.id from accounts as a where a.id in (select id from c) order by a.id for no key update)
update accounts as a set credits = a.credits - c.credits, updated_at = $1 from c, l where a.id = c.id and a.id = l.id`;

const USAGE = textPerCount(
  (n) => `insert into usage_daily (account_id, day, credits, deliveries, events) values ${rowsOf(n, 5)}
on conflict (account_id, day) do update set credits = usage_daily.credits + excluded.credits,
  deliveries = usage_daily.deliveries + excluded.deliveries, events = usage_daily.events + excluded.events`,
);
const RPC_USAGE = `insert into usage_daily (account_id, day, credits, deliveries, events, rpc_calls) values ($1, $2, $3, 0, 0, $4)
on conflict (account_id, day) do update set credits = usage_daily.credits + excluded.credits, rpc_calls = usage_daily.rpc_calls + excluded.rpc_calls`;

const READ_FREE = `select a.credits, ${LEASED_OF_ACCOUNT} as leased from accounts as a where a.id = $1`;
const READ_RPC_ACCOUNT = `select a.credits, ${LEASED_OF_ACCOUNT} as leased, p.rpc_rps from accounts as a join plans as p on p.name = a.plan where a.id = $1`;
const WRITE_LEASE = `insert into credit_leases (holder, account_id, credits, lease_until) values ($1, $2, $3, $4)
on conflict (holder, account_id) do update set credits = excluded.credits, lease_until = excluded.lease_until`;
const DROP_LEASE = "delete from credit_leases where holder = $1 and account_id = $2";
const DROP_EXPIRED_LEASES = "delete from credit_leases where lease_until < $1";
const DROP_ALL_LEASES = "delete from credit_leases";

export const postgresBillingStatements: BillingStatements = {
  chargeAccount: (accountId, credits, nowMs) => preparedQuery(CHARGE, [credits, nowMs, accountId]),
  chargeAccounts: (rows, nowMs) => preparedQuery(CHARGE_MANY, [nowMs, rows.map((r) => r.accountId), rows.map((r) => r.credits)]),
  addUsage: (day, rows) => preparedQuery(USAGE(rows.length), usageParams(day, rows)),
  addRpcUsage: (accountId, day, credits, calls) => preparedQuery(RPC_USAGE, [accountId, day, credits, calls]),
  readFreeCredits: (accountId) => preparedQuery(READ_FREE, [accountId]),
  readRpcAccount: (accountId) => preparedQuery(READ_RPC_ACCOUNT, [accountId]),
  writeLease: (holder, accountId, credits, leaseUntil) => preparedQuery(WRITE_LEASE, [holder, accountId, credits, leaseUntil]),
  dropLease: (holder, accountId) => preparedQuery(DROP_LEASE, [holder, accountId]),
  dropExpiredLeases: (nowMs) => preparedQuery(DROP_EXPIRED_LEASES, [nowMs]),
  dropAllLeases: () => preparedQuery(DROP_ALL_LEASES, []),
};
