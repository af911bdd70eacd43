import { chargeDeliveries, type DeliveryBill } from "../billing/charges.ts";
import type { Executor } from "../db/database.ts";
import { inTransaction } from "../db/executor.ts";
import type { Delivery } from "../db/schema.ts";
import { loggedAttemptCounts } from "./admin.ts";
import { afterFailure, type FailureOutcome, type RetryPolicy } from "./backoff.ts";
import type { ClaimedDelivery } from "./claim.ts";
import { addNotices, type NewNotice } from "../notices/notices.ts";
import { deliveryFailedNotice } from "./delivery-notices.ts";
import type { AttemptLog } from "./send.ts";
import { deliveryStatements } from "./sql/dialects.ts";
import type { NewAttempt } from "./sql/statements.ts";

// Step 4 of a delivery: writing what an attempt came to, and charging a success in the same
// transaction. Each dialect's hand-written statements (sql/): at thousands of
// settlements a second building a query costs more than running it.

export type Outcome = { ok: true; price: number } | { ok: false; next: FailureOutcome };

/** What recording an attempt reads of its delivery (a claimed row has these and not every column). */
export type SettledDelivery = Pick<Delivery, "id" | "account_id" | "kind" | "event_type" | "network" | "attempts">;

/** A finished attempt waiting to be recorded. */
export type Settlement = { delivery: SettledDelivery; attempt: AttemptLog; outcome: Outcome };

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
 * log, one charge and one usage upsert for every account of the batch together, and one multi-row
 * INSERT of the notices of deliveries that used up their attempts (tests excepted): on PostgreSQL
 * a batch costs the same few round trips whether it serves one account or many.
 */
export async function recordOutcomes(db: Executor, items: readonly Settlement[], nowMs: number): Promise<Set<string>> {
  if (items.length === 0) return new Set();
  return inTransaction(db, async (trx) => {
    const statements = deliveryStatements(trx);
    const settled = new Set<string>();
    // Successes with the same answer and price share one UPDATE: on a busy loop most of a group does.
    const groups = new Map<string, { statusCode: number | null; price: number; ids: string[] }>();
    // A delivery that used up its attempts tells its account holder (never its failing endpoint).
    const exhausted: { delivery: SettledDelivery; error: string | null }[] = [];
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
        const res = await trx.executeQuery(statements.markFailed(failed, nowMs));
        if (Number(res.numAffectedRows ?? 0) === 0) continue;
        settled.add(delivery.id);
        if (failed.status === "failed" && delivery.kind !== "test") exhausted.push({ delivery, error: failed.error });
        continue;
      }
      const key = `${attempt.statusCode}:${outcome.price}`;
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { statusCode: attempt.statusCode, price: outcome.price, ids: [] }));
      g.ids.push(delivery.id);
    }
    for (const g of groups.values()) {
      const { rows } = await trx.executeQuery(statements.markSucceeded(g.ids, g.statusCode, g.price, nowMs));
      for (const r of rows) settled.add(r.id);
    }
    const done = settled.size === items.length ? items : items.filter((s) => settled.has(s.delivery.id));
    if (done.length === 0) return settled;
    for (let at = 0; at < done.length; at += ATTEMPT_ROWS_PER_INSERT) {
      const rows = done.slice(at, at + ATTEMPT_ROWS_PER_INSERT).map(({ delivery, attempt }): NewAttempt => ({
        deliveryId: delivery.id,
        attempt: delivery.attempts + 1,
        url: attempt.url,
        startedAt: attempt.startedAt,
        durationMs: attempt.durationMs,
        statusCode: attempt.statusCode,
        error: attempt.error,
        snippet: attempt.snippet,
      }));
      await trx.executeQuery(statements.insertAttempts(rows));
    }
    if (exhausted.length > 0) {
      // The notice counts every logged attempt, this one included, as every view of a delivery does
      // (a Resend starts the schedule, not the log, again). Rare: only deliveries that used up their attempts.
      const counts = await loggedAttemptCounts(trx, exhausted.map((e) => e.delivery.id));
      const notices: NewNotice[] = exhausted.map((e) => deliveryFailedNotice(e.delivery, counts.get(e.delivery.id) ?? 0, e.error, nowMs));
      await addNotices(trx, notices);
    }
    // Billing and the usage series, summed per account.
    const bill = new Map<string, DeliveryBill>();
    for (const { delivery, outcome } of done) {
      if (!outcome.ok || delivery.kind === "test") continue;
      let b = bill.get(delivery.account_id);
      if (!b) bill.set(delivery.account_id, (b = { credits: 0, deliveries: 0 }));
      b.credits += outcome.price;
      b.deliveries += 1;
    }
    await chargeDeliveries(trx, [...bill], nowMs);
    return settled;
  });
}

/** Rows per INSERT: 8 parameters each, far below SQLite's limit on parameters. */
const ATTEMPT_ROWS_PER_INSERT = 256;
