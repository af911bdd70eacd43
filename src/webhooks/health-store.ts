import type { Executor } from "../db/database.ts";
import { lockOrder } from "../db/lock-order.ts";
import type { EndpointHealthTable } from "../db/schema.ts";
import type { EndpointAttempt, FailingEndpoint } from "../delivery/endpoint-outcomes.ts";
import { endpointHealthStatements } from "./sql/dialects.ts";
import type { EndpointOutcome } from "./sql/statements.ts";

// The persisted health of each webhook endpoint (`endpoint_health`, written here only): the first
// failure of the current run of failures, the last success and the last error. The settlement
// transaction folds each batch into it with one statement (the loop settles thousands of attempts
// a second, so nothing here runs per attempt); the settings clear the run when the endpoint is
// switched on again, and health-watch.ts marks a run that switched it off.

/** What a batch saw of one endpoint, plus where and how its last failure went (for the switch-off). */
type Summary = EndpointOutcome & { accountId: string; lastFailureUrl: string | null };

/**
 * One outcome per endpoint of a batch of attempts, in endpoint id order (settlements on several
 * daemons then lock `endpoint_health` rows in the same order): the batch's last success, the first
 * failure after it and the last failure's answer.
 */
export function summarizeEndpointAttempts(attempts: readonly EndpointAttempt[]): Summary[] {
  const byEndpoint = new Map<string, Summary>();
  // Attempts finish out of order; the run is about when each began.
  const ordered = [...attempts].sort((a, b) => a.attempt.startedAt - b.attempt.startedAt);
  for (const { endpointId, accountId, attempt } of ordered) {
    let s = byEndpoint.get(endpointId);
    if (!s) {
      s = { endpointId, accountId, lastSuccessAt: null, failingSince: null, lastStatusCode: null, lastError: null, lastFailureUrl: null };
      byEndpoint.set(endpointId, s);
    }
    if (attempt.error === null) {
      s.lastSuccessAt = attempt.startedAt;
      s.failingSince = null;
      s.lastStatusCode = null;
      s.lastError = null;
      s.lastFailureUrl = null;
      continue;
    }
    s.failingSince ??= attempt.startedAt;
    s.lastStatusCode = attempt.statusCode;
    s.lastError = attempt.error;
    s.lastFailureUrl = attempt.url;
  }
  return [...byEndpoint.values()].sort((a, b) => lockOrder(a.endpointId, b.endpointId));
}

/** Endpoints per statement: 6 parameters each. */
const ROWS_PER_STATEMENT = 256;

/**
 * Folds a batch of settled attempts into `endpoint_health`, in the caller's transaction, and
 * returns the endpoints whose run of failures has now lasted `disableAfterMs` (0: never) and has not
 * switched them off yet. One statement per 256 endpoints of the batch.
 */
export async function recordEndpointAttempts(
  db: Executor,
  attempts: readonly EndpointAttempt[],
  nowMs: number,
  disableAfterMs: number,
): Promise<FailingEndpoint[]> {
  if (attempts.length === 0) return [];
  const summaries = summarizeEndpointAttempts(attempts);
  const statements = endpointHealthStatements(db);
  const due: FailingEndpoint[] = [];
  for (let at = 0; at < summaries.length; at += ROWS_PER_STATEMENT) {
    const chunk = summaries.slice(at, at + ROWS_PER_STATEMENT);
    const { rows } = await db.executeQuery(statements.recordEndpointOutcomes(chunk, nowMs));
    if (disableAfterMs <= 0) continue;
    const byId = new Map(chunk.map((s) => [s.endpointId, s]));
    for (const r of rows) {
      const s = byId.get(r.endpoint_id);
      // Only a batch that ended on a failure can switch off: a success would have ended the run.
      if (!s || s.lastError === null || s.lastFailureUrl === null) continue;
      if (r.failing_since === null || r.disabled_at !== null) continue;
      const failingSince = Number(r.failing_since);
      if (nowMs - failingSince < disableAfterMs) continue;
      due.push({
        endpointId: s.endpointId,
        accountId: s.accountId,
        url: s.lastFailureUrl,
        failingSince,
        lastStatusCode: s.lastStatusCode,
        lastError: s.lastError,
      });
    }
  }
  return due;
}

/** Records that the run of failures switched the endpoint off. */
export async function markEndpointDisabled(db: Executor, endpointId: string, nowMs: number): Promise<void> {
  await db.updateTable("endpoint_health").set({ disabled_at: nowMs, updated_at: nowMs }).where("endpoint_id", "=", endpointId).execute();
}

/**
 * Ends the endpoint's run of failures (it was switched on again or pointed elsewhere): it counts as
 * healthy until an attempt fails. The last success is kept.
 */
export async function clearEndpointRun(db: Executor, endpointId: string, nowMs: number): Promise<void> {
  await db
    .updateTable("endpoint_health")
    .set({ failing_since: null, last_status_code: null, last_error: null, disabled_at: null, updated_at: nowMs })
    .where("endpoint_id", "=", endpointId)
    .execute();
}

/** The endpoint's stored health; undefined while it was never attempted. */
export async function readEndpointRow(db: Executor, endpointId: string): Promise<EndpointHealthTable | undefined> {
  const row = await db.selectFrom("endpoint_health").selectAll().where("endpoint_id", "=", endpointId).executeTakeFirst();
  if (!row) return undefined;
  // PostgreSQL's bigint columns arrive as strings.
  const ms = (v: number | string | null) => (v === null ? null : Number(v));
  return {
    ...row,
    failing_since: ms(row.failing_since),
    last_success_at: ms(row.last_success_at),
    disabled_at: ms(row.disabled_at),
    updated_at: Number(row.updated_at),
  };
}
