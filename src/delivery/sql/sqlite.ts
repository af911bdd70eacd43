import { compiled, textPerCount } from "../../db/dialect/compiled.ts";
import { marks, rowsOf } from "../../db/dialect/sqlite/placeholders.ts";
import { LEASED_OF_ACCOUNT } from "../../billing/sql/statements.ts";
import { ATTEMPT_COLUMNS, attemptParams, bodyParams, type DeliveryStatements, DUE_ROW_COLUMNS, deliveryParams, failedParams, OUTBOX_COLUMNS, OUTBOX_WIDTH } from "./statements.ts";

// The statements of the outbox in SQLite's SQL (what each does: statements.ts). `?` placeholders;
// `+status` is a unary plus that keeps SQLite's planner off the due index (see markSucceeded).

// No row lock: the claim's write transaction (BEGIN IMMEDIATE) runs alone.
// Only the rows of existing accounts: the claim reads each account of its rows once after them
// (ACCOUNTS), and each endpoint once (ENDPOINTS); joined to every row, they cost more than the rows.
// Each row's body is its own row of delivery_bodies, found by key.
const DUE_COLUMNS = `select ${DUE_ROW_COLUMNS}, b.body from deliveries as d inner join accounts as a on a.id = d.account_id
inner join delivery_bodies as b on b.delivery_id = d.id`;
const PAYMENT_IN_TURN = `(d.payment_id is null or not exists (
    select 1 from deliveries as p
    where p.payment_id = d.payment_id and p.endpoint_id is d.endpoint_id and p.sequence < d.sequence and p.status in ('pending', 'paused')))`;
const SELECT_DUE = `${DUE_COLUMNS}
where d.status = 'pending' and d.replay = ? and d.next_attempt_at <= ? and (d.lease_until is null or d.lease_until < ?)
  and ${PAYMENT_IN_TURN}
order by d.next_attempt_at
limit ?`;
// Live rows read from the other end of the due index: the most recently due first.
const SELECT_NEWEST_DUE = `${DUE_COLUMNS}
where d.status = 'pending' and d.replay = 0 and d.next_attempt_at > ? and d.next_attempt_at <= ? and (d.lease_until is null or d.lease_until < ?)
  and ${PAYMENT_IN_TURN}
order by d.next_attempt_at desc
limit ?`;

// A row without endpoint (a payment-order webhook to the payments URL) is signed with the
// account's default endpoint's secret: its endpoint with the smallest id, one seek on
// webhook_endpoints_account per account.
const ACCOUNTS = textPerCount(
  (n) => `select a.id, a.credits, ${LEASED_OF_ACCOUNT} as leased, a.payments_webhook_url, a.disabled_at,
  (select min(x.id) from webhook_endpoints as x where x.account_id = a.id) as default_endpoint_id
from accounts as a where a.id in (${marks(n)})`,
);
const ENDPOINTS = textPerCount(
  (n) => `select e.id, e.url, e.enabled, e.max_rps, e.secret_enc, e.previous_secret_enc, e.previous_secret_expires_at
from webhook_endpoints as e where e.id in (${marks(n)})`,
);

const LEASE = textPerCount((n) => `update deliveries set lease_until = ? where id in (${marks(n)})`);
const PAUSE = textPerCount((n) => `update deliveries set status = 'paused', lease_until = null, updated_at = ? where id in (${marks(n)})`);
const RELEASE = "update deliveries set lease_until = null where id = ? and lease_until = ? and +status = 'pending'";

// `+status` keeps SQLite on the primary key: with `status = 'pending'` it picks the due index and
// walks every pending row.
const SUCCEEDED = textPerCount(
  (n) => `update deliveries set status = 'succeeded', attempts = attempts + 1, lease_until = null, last_status_code = ?, last_error = null,
credits_charged = ?, updated_at = ?, completed_at = ? where id in (${marks(n)}) and +status = 'pending' returning id`,
);
const FAILED = `update deliveries set status = ?, attempts = ?, next_attempt_at = ?, lease_until = null, last_status_code = ?, last_error = ?,
updated_at = ?, completed_at = ? where id = ? and +status = 'pending'`;
const INSERT = textPerCount((n) => `insert into deliveries (${OUTBOX_COLUMNS}) values ${rowsOf(n, OUTBOX_WIDTH)}`);
const BODIES = textPerCount((n) => `insert into delivery_bodies (delivery_id, body) values ${rowsOf(n, 2)}`);
const ATTEMPTS = textPerCount((n) => `insert into delivery_attempts (${ATTEMPT_COLUMNS}) values ${rowsOf(n, 8)}`);

export const sqliteDeliveryStatements: DeliveryStatements = {
  insertDeliveries: (rows) => compiled(INSERT(rows.length), deliveryParams(rows)),
  insertBodies: (rows) => compiled(BODIES(rows.length), bodyParams(rows)),
  selectDueDeliveries: (nowMs, limit, replay) => compiled(SELECT_DUE, [replay ? 1 : 0, nowMs, nowMs, limit]),
  selectNewestDueDeliveries: (afterMs, nowMs, limit) => compiled(SELECT_NEWEST_DUE, [afterMs, nowMs, nowMs, limit]),
  selectClaimAccounts: (ids) => compiled(ACCOUNTS(ids.length), [...ids]),
  selectClaimEndpoints: (ids) => compiled(ENDPOINTS(ids.length), [...ids]),
  leaseDeliveries: (ids, leaseUntil) => compiled(LEASE(ids.length), [leaseUntil, ...ids]),
  pauseDeliveries: (ids, nowMs) => compiled(PAUSE(ids.length), [nowMs, ...ids]),
  releaseLease: (id, leaseUntil) => compiled(RELEASE, [id, leaseUntil]),
  markSucceeded: (ids, statusCode, price, nowMs) => compiled(SUCCEEDED(ids.length), [statusCode, price, nowMs, nowMs, ...ids]),
  markFailed: (f, nowMs) => compiled(FAILED, failedParams(f, nowMs)),
  insertAttempts: (rows) => compiled(ATTEMPTS(rows.length), attemptParams(rows)),
};
