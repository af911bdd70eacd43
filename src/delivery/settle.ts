import { recordUsage } from "../billing/usage.ts";
import type { Executor } from "../db/database.ts";
import { fixedStatement as statement, placeholders as list } from "../db/fixed-sql.ts";
import type { Delivery } from "../db/schema.ts";
import { afterFailure, type FailureOutcome, type RetryPolicy } from "./backoff.ts";
import { type ClaimedDelivery, inTransaction } from "./claim.ts";
import type { AttemptLog } from "./send.ts";

// Step 4 of a delivery: writing what an attempt came to, and charging a success in the same
// transaction. Fixed SQLite text (see db/fixed-sql.ts): at thousands of settlements a second
// building a query costs more than running it.

export type Outcome = { ok: true; price: number } | { ok: false; next: FailureOutcome };

/** A finished attempt waiting to be recorded. */
export type Settlement = { delivery: Delivery; attempt: AttemptLog; outcome: Outcome };

/** What an attempt of a claimed row comes to: a success at the row's price, or the next try (or the end) by `policy`. */
export function outcomeOf(sent: { ok: boolean }, d: Pick<ClaimedDelivery, "attempts" | "price">, policy: RetryPolicy, nowMs: number): Outcome {
  return sent.ok ? { ok: true, price: d.price } : { ok: false, next: afterFailure(d.attempts + 1, policy, nowMs) };
}

/**
 * Records finished attempts in one short transaction (or the caller's: the loop's group commit
 * writes results that complete together, and claims in the same transaction). Each success is
 * charged in the same transaction that marks it succeeded (credits and the usage series), so a
 * delivery is billed exactly when it is settled. A row is settled only while still pending (not
 * re-queued or settled meanwhile); returns the ids settled, and nothing else is logged or billed.
 * Set-based: one UPDATE per distinct success (answer, price), one multi-row INSERT of the attempt
 * log, one charge and one usage row per account.
 */
export async function recordOutcomes(db: Executor, items: readonly Settlement[], nowMs: number): Promise<Set<string>> {
  if (items.length === 0) return new Set();
  return inTransaction(db, async (trx) => {
    const settled = new Set<string>();
    // Successes with the same answer and price share one UPDATE: on a busy loop most of a group does.
    const groups = new Map<string, { statusCode: number | null; price: number; ids: string[] }>();
    for (const { delivery, attempt, outcome } of items) {
      if (!outcome.ok) {
        const failed = {
          id: delivery.id,
          status: outcome.next.status,
          attempts: delivery.attempts + 1,
          nextAttemptAt: outcome.next.nextAttemptAt,
          statusCode: attempt.statusCode,
          error: attempt.error,
        };
        const res = await trx.executeQuery(markFailed(failed, nowMs));
        if (Number(res.numAffectedRows ?? 0) > 0) settled.add(delivery.id);
        continue;
      }
      const key = `${attempt.statusCode}:${outcome.price}`;
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { statusCode: attempt.statusCode, price: outcome.price, ids: [] }));
      g.ids.push(delivery.id);
    }
    for (const g of groups.values()) {
      const { rows } = await trx.executeQuery(markSucceeded(g.ids, g.statusCode, g.price, nowMs));
      for (const r of rows) settled.add(r.id);
    }
    const done = settled.size === items.length ? items : items.filter((s) => settled.has(s.delivery.id));
    if (done.length === 0) return settled;
    for (let at = 0; at < done.length; at += ATTEMPT_ROWS_PER_INSERT) {
      const rows = done.slice(at, at + ATTEMPT_ROWS_PER_INSERT).map(({ delivery, attempt }) => ({
        deliveryId: delivery.id,
        attempt: delivery.attempts + 1,
        url: attempt.url,
        startedAt: attempt.startedAt,
        durationMs: attempt.durationMs,
        statusCode: attempt.statusCode,
        error: attempt.error,
        snippet: attempt.snippet,
      }));
      await trx.executeQuery(insertAttempts(rows));
    }
    // Billing and the usage series, summed per account.
    const bill = new Map<string, { credits: number; deliveries: number }>();
    for (const { delivery, outcome } of done) {
      if (!outcome.ok || delivery.kind === "test") continue;
      let b = bill.get(delivery.account_id);
      if (!b) bill.set(delivery.account_id, (b = { credits: 0, deliveries: 0 }));
      b.credits += outcome.price;
      b.deliveries += 1;
    }
    // In account id order: settlements racing on several daemons then lock account rows in the same order (no deadlock).
    for (const [accountId, b] of [...bill].sort(([a], [z]) => (a < z ? -1 : 1))) {
      if (b.credits > 0) await trx.executeQuery(chargeAccount(accountId, b.credits, nowMs));
      await recordUsage(trx, accountId, nowMs, b);
    }
    return settled;
  });
}

/**
 * Settles successes that share an answer and a price, each only while still pending; returns the
 * ids settled. `+status` keeps SQLite on the primary key: with `status = ?` it picks the due index
 * and walks every pending row.
 */
function markSucceeded(ids: readonly string[], statusCode: number | null, price: number, nowMs: number) {
  return statement<{ id: string }>(
    `update deliveries set status = 'succeeded', attempts = attempts + 1, lease_until = null, last_status_code = ?, last_error = null,
credits_charged = ?, updated_at = ?, completed_at = ? where id in (${list(ids.length)}) and +status = 'pending' returning id`,
    [statusCode, price, nowMs, nowMs, ...ids],
  );
}

type FailedRow = {
  id: string;
  status: "pending" | "failed";
  attempts: number;
  nextAttemptAt: number;
  statusCode: number | null;
  error: string | null;
};

/** Settles one failed attempt while the row is still pending (numAffectedRows says whether it was). */
function markFailed(f: FailedRow, nowMs: number) {
  return statement(
    `update deliveries set status = ?, attempts = ?, next_attempt_at = ?, lease_until = null, last_status_code = ?, last_error = ?,
updated_at = ?, completed_at = ? where id = ? and +status = 'pending'`,
    [f.status, f.attempts, f.nextAttemptAt, f.statusCode, f.error, nowMs, f.status === "failed" ? nowMs : null, f.id],
  );
}

type AttemptRowInput = AttemptLog & { deliveryId: string; attempt: number };

/** Rows per INSERT: 8 parameters each, far below SQLite's limit on parameters. */
const ATTEMPT_ROWS_PER_INSERT = 256;

/** One multi-row INSERT of attempt log rows (at most ATTEMPT_ROWS_PER_INSERT). */
function insertAttempts(rows: readonly AttemptRowInput[]) {
  const params: unknown[] = [];
  for (const r of rows) params.push(r.deliveryId, r.attempt, r.url, r.startedAt, r.durationMs, r.statusCode, r.error, r.snippet);
  return statement(
    `insert into delivery_attempts (delivery_id, attempt, url, started_at, duration_ms, status_code, error, response_snippet) values ${"(?,?,?,?,?,?,?,?),".repeat(rows.length - 1)}(?,?,?,?,?,?,?,?)`,
    params,
  );
}

/** Takes a group's successes off an account's credit pool. */
function chargeAccount(accountId: string, credits: number, nowMs: number) {
  return statement("update accounts set credits = credits - ?, updated_at = ? where id = ?", [credits, nowMs, accountId]);
}
