import type { AttemptLog } from "./deliveries.ts";
import type { CompiledQuery } from "kysely";
import { fixedStatement as statement, placeholders as list } from "../db/fixed-sql.ts";

// The delivery loop's hot statements, written once in SQLite's dialect. At thousands of deliveries
// a second, building and compiling a Kysely query costs more than SQLite spends running it, and a
// multi-row query builds a node per value. These run through `executeQuery` (same connection,
// same transaction) with fixed SQL text, so the driver's statement cache reuses SQLite's compiled
// statement; lists vary only the number of placeholders.

/**
 * Due rows with their account's route and balance, oldest due first. A payment row waits while a
 * lower sequence of its payment is still pending or paused. `next_attempt_at` is the only sort key:
 * the due index yields rows in that order (ties by insertion) and the scan stops at the limit.
 */
const CLAIM_DUE = `select d.*, a.credits as account_credits, a.webhook_url, a.webhook_enabled, a.payments_webhook_url, a.webhook_secret_enc
from deliveries as d inner join accounts as a on a.id = d.account_id
where d.status = 'pending' and d.next_attempt_at <= ? and (d.lease_until is null or d.lease_until < ?)
  and (d.payment_id is null or not exists (
    select 1 from deliveries as p
    where p.payment_id = d.payment_id and p.sequence < d.sequence and p.status in ('pending', 'paused')))
order by d.next_attempt_at
limit ?`;

export function selectDue(nowMs: number, limit: number): CompiledQuery {
  return statement(CLAIM_DUE, [nowMs, nowMs, limit]);
}

export function lease(ids: readonly string[], leaseUntil: number): CompiledQuery {
  return statement(`update deliveries set lease_until = ? where id in (${list(ids.length)})`, [leaseUntil, ...ids]);
}

/** Drops a lease taken by a claim whose row was not sent after all, if the lease is still that one. */
export function release(id: string, leaseUntil: number): CompiledQuery {
  return statement("update deliveries set lease_until = null where id = ? and lease_until = ? and +status = 'pending'", [id, leaseUntil]);
}

export function pause(ids: readonly string[], nowMs: number): CompiledQuery {
  return statement(`update deliveries set status = 'paused', lease_until = null, updated_at = ? where id in (${list(ids.length)})`, [
    nowMs,
    ...ids,
  ]);
}

/**
 * Settles successes that share an answer and a price, each only while still pending; returns the
 * ids settled. `+status` keeps SQLite on the primary key: with `status = ?` it picks the due index
 * and walks every pending row of the outbox.
 */
export function markSucceeded(ids: readonly string[], statusCode: number | null, price: number, nowMs: number): CompiledQuery<{ id: string }> {
  return statement(
    `update deliveries set status = 'succeeded', attempts = attempts + 1, lease_until = null, last_status_code = ?, last_error = null,
credits_charged = ?, updated_at = ?, completed_at = ? where id in (${list(ids.length)}) and +status = 'pending' returning id`,
    [statusCode, price, nowMs, nowMs, ...ids],
  );
}

export type FailedRow = {
  id: string;
  status: "pending" | "failed";
  attempts: number;
  nextAttemptAt: number;
  statusCode: number | null;
  error: string | null;
};

/** Settles one failed attempt while the row is still pending (numAffectedRows says whether it was). */
export function markFailed(f: FailedRow, nowMs: number): CompiledQuery {
  return statement(
    `update deliveries set status = ?, attempts = ?, next_attempt_at = ?, lease_until = null, last_status_code = ?, last_error = ?,
updated_at = ?, completed_at = ? where id = ? and +status = 'pending'`,
    [f.status, f.attempts, f.nextAttemptAt, f.statusCode, f.error, nowMs, f.status === "failed" ? nowMs : null, f.id],
  );
}

export type AttemptRowInput = AttemptLog & { deliveryId: string; attempt: number };

/** Rows per INSERT: 8 parameters each, far below SQLite's limit on parameters. */
export const ATTEMPT_ROWS_PER_INSERT = 256;

/** One multi-row INSERT of attempt log rows (at most ATTEMPT_ROWS_PER_INSERT). */
export function insertAttempts(rows: readonly AttemptRowInput[]): CompiledQuery {
  const params: unknown[] = [];
  for (const r of rows) params.push(r.deliveryId, r.attempt, r.url, r.startedAt, r.durationMs, r.statusCode, r.error, r.snippet);
  return statement(
    `insert into delivery_attempts (delivery_id, attempt, url, started_at, duration_ms, status_code, error, response_snippet) values ${"(?,?,?,?,?,?,?,?),".repeat(rows.length - 1)}(?,?,?,?,?,?,?,?)`,
    params,
  );
}

/** Takes a group's successes off an account's credit pool. */
export function chargeAccount(accountId: string, credits: number, nowMs: number): CompiledQuery {
  return statement("update accounts set credits = credits - ?, updated_at = ? where id = ?", [credits, nowMs, accountId]);
}
