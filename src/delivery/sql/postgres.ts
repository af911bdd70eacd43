import { textPerCount } from "../../db/dialect/compiled.ts";
import { numbered, rowsOf } from "../../db/dialect/postgres/placeholders.ts";
import { preparedQuery } from "../../db/dialect/postgres/prepared.ts";
import { LEASED_OF_ACCOUNT } from "../../billing/sql/statements.ts";
import { ATTEMPT_COLUMNS, attemptParams, bodyParams, type DeliveryStatements, DUE_ROW_COLUMNS, deliveryParams, failedParams, OUTBOX_COLUMNS, OUTBOX_WIDTH } from "./statements.ts";

// The statements of the outbox in PostgreSQL's SQL (what each does: statements.ts). Numbered
// placeholders; the claim's plan is held by `orderedClaimPlan` in db/primitives.ts, and the settling
// statements' status test keeps them on the primary key (STILL_PENDING). Every text is a named
// prepared statement on each connection (db/dialect/postgres/prepared.ts).

// The due rows stay locked until the claim commits their lease; rows another daemon is claiming
// are passed over instead of claimed twice or waited on.
// Only the rows of existing accounts: the claim reads each account of its rows once after them
// (ACCOUNTS), and each endpoint once (ENDPOINTS); joined to every row, they cost more than the rows.
// Each row's body is its own row of delivery_bodies, found by key.
const DUE_COLUMNS = `select ${DUE_ROW_COLUMNS}, b.body from deliveries as d inner join accounts as a on a.id = d.account_id
inner join delivery_bodies as b on b.delivery_id = d.id`;
const PAYMENT_IN_TURN = `(d.payment_id is null or not exists (
    select 1 from deliveries as p
    where p.payment_id = d.payment_id and p.endpoint_id is not distinct from d.endpoint_id and p.sequence < d.sequence and p.status in ('pending', 'paused')))`;
const SELECT_DUE = `${DUE_COLUMNS}
where d.status = 'pending' and d.replay = $3 and d.next_attempt_at <= $1 and (d.lease_until is null or d.lease_until < $1)
  and ${PAYMENT_IN_TURN}
order by d.next_attempt_at
limit $2
for update of d skip locked`;
// Live rows read from the other end of the due index: the most recently due first.
const SELECT_NEWEST_DUE = `${DUE_COLUMNS}
where d.status = 'pending' and d.replay = 0 and d.next_attempt_at > $1 and d.next_attempt_at <= $2 and (d.lease_until is null or d.lease_until < $2)
  and ${PAYMENT_IN_TURN}
order by d.next_attempt_at desc
limit $3
for update of d skip locked`;

// A row without endpoint (a payment-order webhook to the payments URL) is signed with the
// account's default endpoint's secret: its endpoint with the smallest id, one seek on
// webhook_endpoints_account per account.
const ACCOUNTS = textPerCount(
  (n) => `select a.id, a.credits, ${LEASED_OF_ACCOUNT} as leased, a.payments_webhook_url, a.disabled_at,
  (select min(x.id) from webhook_endpoints as x where x.account_id = a.id) as default_endpoint_id
from accounts as a where a.id in (${numbered(1, n)})`,
);
const ENDPOINTS = textPerCount(
  (n) => `select e.id, e.url, e.enabled, e.max_rps, e.secret_enc, e.previous_secret_enc, e.previous_secret_expires_at
from webhook_endpoints as e where e.id in (${numbered(1, n)})`,
);

const LEASE = textPerCount((n) => `update deliveries set lease_until = $1 where id in (${numbered(2, n)})`);
const PAUSE = textPerCount((n) => `update deliveries set status = 'paused', lease_until = null, updated_at = $1 where id in (${numbered(2, n)})`);
// The settling statements find their rows by primary key. Their status test is spelt so the due
// index (status, replay, next_attempt_at) cannot serve it: after a burst turned thousands of rows pending
// (a recovery re-queuing failed ones) and before autovacuum's ANALYZE, the planner thinks pending
// rows rare and, given `status = 'pending'`, walked every pending row on the due index instead
// (30 ms a statement at 50,000 rows, against 0.1 ms by key). SQLite's statements use `+status`.
const STILL_PENDING = "coalesce(status, '') = 'pending'";
const RELEASE = `update deliveries set lease_until = null where id = $1 and lease_until = $2 and ${STILL_PENDING}`;

const SUCCEEDED = textPerCount(
  (n) => `update deliveries set status = 'succeeded', attempts = attempts + 1, lease_until = null, last_status_code = $1, last_error = null,
credits_charged = $2, updated_at = $3, completed_at = $3 where id in (${numbered(4, n)}) and ${STILL_PENDING} returning id`,
);
const FAILED = `update deliveries set status = $1, attempts = $2, next_attempt_at = $3, lease_until = null, last_status_code = $4, last_error = $5,
updated_at = $6, completed_at = $7 where id = $8 and ${STILL_PENDING}`;
const INSERT = textPerCount((n) => `insert into deliveries (${OUTBOX_COLUMNS}) values ${rowsOf(n, OUTBOX_WIDTH)}`);
const BODIES = textPerCount((n) => `insert into delivery_bodies (delivery_id, body) values ${rowsOf(n, 2)}`);
const ATTEMPTS = textPerCount((n) => `insert into delivery_attempts (${ATTEMPT_COLUMNS}) values ${rowsOf(n, 8)}`);

export const postgresDeliveryStatements: DeliveryStatements = {
  insertDeliveries: (rows) => preparedQuery(INSERT(rows.length), deliveryParams(rows)),
  insertBodies: (rows) => preparedQuery(BODIES(rows.length), bodyParams(rows)),
  selectDueDeliveries: (nowMs, limit, replay) => preparedQuery(SELECT_DUE, [nowMs, limit, replay ? 1 : 0]),
  selectNewestDueDeliveries: (afterMs, nowMs, limit) => preparedQuery(SELECT_NEWEST_DUE, [afterMs, nowMs, limit]),
  selectClaimAccounts: (ids) => preparedQuery(ACCOUNTS(ids.length), [...ids]),
  selectClaimEndpoints: (ids) => preparedQuery(ENDPOINTS(ids.length), [...ids]),
  leaseDeliveries: (ids, leaseUntil) => preparedQuery(LEASE(ids.length), [leaseUntil, ...ids]),
  pauseDeliveries: (ids, nowMs) => preparedQuery(PAUSE(ids.length), [nowMs, ...ids]),
  releaseLease: (id, leaseUntil) => preparedQuery(RELEASE, [id, leaseUntil]),
  markSucceeded: (ids, statusCode, price, nowMs) => preparedQuery(SUCCEEDED(ids.length), [statusCode, price, nowMs, ...ids]),
  markFailed: (f, nowMs) => preparedQuery(FAILED, failedParams(f, nowMs)),
  insertAttempts: (rows) => preparedQuery(ATTEMPTS(rows.length), attemptParams(rows)),
};
