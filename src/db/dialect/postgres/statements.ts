import type { NewAttempt, Statements } from "../../statements.ts";
import { compiled as compiledText, textPerCount } from "../compiled.ts";
import { prepared } from "./prepared.ts";

// The hot-path statements in PostgreSQL's SQL (what each does: `src/db/statements.ts`). Numbered
// placeholders; the claim's plan is held by `orderedClaimPlan` in primitives.ts, and the settling
// statements' status test keeps them on the primary key (STILL_PENDING). Every text is a named
// prepared statement on each connection (prepared.ts).

/** A compiled query whose text is prepared once per connection. */
function compiled<R = unknown>(sql: string, parameters: unknown[]) {
  return compiledText<R>(prepared(sql), parameters);
}

/** `$from, …`: `n` numbered placeholders starting at `from`. */
function numbered(from: number, n: number): string {
  const out = new Array<string>(n);
  for (let i = 0; i < n; i++) out[i] = `$${from + i}`;
  return out.join(",");
}

/** `($1,…,$width), ($width+1,…), …`: `rows` rows of `width` numbered placeholders. */
function rowsOf(rows: number, width: number): string {
  const out = new Array<string>(rows);
  for (let r = 0; r < rows; r++) out[r] = `(${numbered(r * width + 1, width)})`;
  return out.join(",");
}

/** What every daemon has set aside of the account `a`: summed by each check of the free credits. */
const LEASED_OF_ACCOUNT = "(select coalesce(sum(l.credits), 0) from credit_leases as l where l.account_id = a.id)";

// The due rows stay locked until the claim commits their lease; rows another daemon is claiming
// are passed over instead of claimed twice or waited on.
// A row without endpoint (a payment-order webhook to the payments URL) is signed with the
// account's default endpoint's secret: its endpoint with the smallest id, one seek on
// webhook_endpoints_account, made only for such rows.
const DUE_COLUMNS = `select d.*, a.credits as account_credits, ${LEASED_OF_ACCOUNT} as account_leased, a.payments_webhook_url, a.disabled_at as account_disabled_at,
  e.url as endpoint_url, e.enabled as endpoint_enabled, e.max_rps as endpoint_max_rps, e.secret_enc as endpoint_secret_enc,
  e.previous_secret_enc as endpoint_previous_secret_enc, e.previous_secret_expires_at as endpoint_previous_secret_expires_at
from deliveries as d inner join accounts as a on a.id = d.account_id
left join webhook_endpoints as e on e.id = coalesce(d.endpoint_id, (select min(x.id) from webhook_endpoints as x where x.account_id = d.account_id))`;
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
const ATTEMPTS = textPerCount(
  (n) => `insert into delivery_attempts (delivery_id, attempt, url, started_at, duration_ms, status_code, error, response_snippet) values ${rowsOf(n, 8)}`,
);

function attemptParams(rows: readonly NewAttempt[]): unknown[] {
  const params: unknown[] = [];
  for (const r of rows) params.push(r.deliveryId, r.attempt, r.url, r.startedAt, r.durationMs, r.statusCode, r.error, r.snippet);
  return params;
}

export const postgresStatements: Statements = {
  selectDueDeliveries: (nowMs, limit, replay) => compiled(SELECT_DUE, [nowMs, limit, replay ? 1 : 0]),
  selectNewestDueDeliveries: (afterMs, nowMs, limit) => compiled(SELECT_NEWEST_DUE, [afterMs, nowMs, limit]),
  leaseDeliveries: (ids, leaseUntil) => compiled(LEASE(ids.length), [leaseUntil, ...ids]),
  pauseDeliveries: (ids, nowMs) => compiled(PAUSE(ids.length), [nowMs, ...ids]),
  releaseLease: (id, leaseUntil) => compiled(RELEASE, [id, leaseUntil]),
  markSucceeded: (ids, statusCode, price, nowMs) => compiled(SUCCEEDED(ids.length), [statusCode, price, nowMs, ...ids]),
  markFailed: (f, nowMs) =>
    compiled(FAILED, [f.status, f.attempts, f.nextAttemptAt, f.statusCode, f.error, nowMs, f.status === "failed" ? nowMs : null, f.id]),
  insertAttempts: (rows) => compiled(ATTEMPTS(rows.length), attemptParams(rows)),
};
