import type { Executor } from "../db/database.ts";
import type { EndpointHealthTable } from "../db/schema.ts";
import { type EndpointOutcome, statementsOf } from "../db/statements.ts";
import { resolveNotices } from "./notices.ts";
import { sendWaitingDeliveries } from "./outbox.ts";
import type { AttemptLog } from "./send.ts";

// The persisted health of each account's webhook endpoint (`endpoint_health`, written here only):
// the first failure of the current run of failures, the last success and the last error. The
// settlement transaction folds each batch into it with one statement (the loop settles thousands
// of attempts a second, so nothing here runs per attempt); the webhook settings clear the run when
// the webhook is switched on again, and endpoint-disable.ts marks a run that disabled it.

/** A settled attempt that went to an account's address-watch webhook URL. */
export type EndpointAttempt = { accountId: string; attempt: Pick<AttemptLog, "url" | "startedAt" | "statusCode" | "error"> };

/** An endpoint failing for at least the configured time and not yet disabled by that run. */
export type FailingEndpoint = {
  accountId: string;
  url: string;
  failingSince: number;
  lastStatusCode: number | null;
  lastError: string;
};

/** What a batch saw of one endpoint, plus where and how its last failure went (for the disable step). */
type Summary = EndpointOutcome & { lastFailureUrl: string | null };

/**
 * One outcome per account of a batch of attempts, in account id order (settlements on several
 * daemons then lock `endpoint_health` rows in the same order): the batch's last success, the first
 * failure after it and the last failure's answer.
 */
export function summarizeEndpointAttempts(attempts: readonly EndpointAttempt[]): Summary[] {
  const byAccount = new Map<string, Summary>();
  // Attempts finish out of order; the run is about when each began.
  const ordered = [...attempts].sort((a, b) => a.attempt.startedAt - b.attempt.startedAt);
  for (const { accountId, attempt } of ordered) {
    let s = byAccount.get(accountId);
    if (!s) {
      s = { accountId, lastSuccessAt: null, failingSince: null, lastStatusCode: null, lastError: null, lastFailureUrl: null };
      byAccount.set(accountId, s);
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
  return [...byAccount.values()].sort((a, b) => (a.accountId < b.accountId ? -1 : a.accountId > b.accountId ? 1 : 0));
}

/** Accounts per statement: 6 parameters each. */
const ROWS_PER_STATEMENT = 256;

/**
 * Folds a batch of settled attempts into `endpoint_health`, in the caller's transaction, and
 * returns the endpoints whose run of failures has now lasted `disableAfterMs` (0: never) and has not
 * disabled them yet. One statement per 256 accounts of the batch.
 */
export async function recordEndpointAttempts(
  db: Executor,
  attempts: readonly EndpointAttempt[],
  nowMs: number,
  disableAfterMs: number,
): Promise<FailingEndpoint[]> {
  if (attempts.length === 0) return [];
  const summaries = summarizeEndpointAttempts(attempts);
  const statements = statementsOf(db);
  const due: FailingEndpoint[] = [];
  for (let at = 0; at < summaries.length; at += ROWS_PER_STATEMENT) {
    const chunk = summaries.slice(at, at + ROWS_PER_STATEMENT);
    const { rows } = await db.executeQuery(statements.recordEndpointOutcomes(chunk, nowMs));
    if (disableAfterMs <= 0) continue;
    const byId = new Map(chunk.map((s) => [s.accountId, s]));
    for (const r of rows) {
      const s = byId.get(r.account_id);
      // Only a batch that ended on a failure can disable: a success would have ended the run.
      if (!s || s.lastError === null || s.lastFailureUrl === null) continue;
      if (r.failing_since === null || r.disabled_at !== null) continue;
      const failingSince = Number(r.failing_since);
      if (nowMs - failingSince < disableAfterMs) continue;
      due.push({ accountId: s.accountId, url: s.lastFailureUrl, failingSince, lastStatusCode: s.lastStatusCode, lastError: s.lastError });
    }
  }
  return due;
}

/** Records that the run of failures switched the account's webhook off. */
export async function markEndpointDisabled(db: Executor, accountId: string, nowMs: number): Promise<void> {
  await db.updateTable("endpoint_health").set({ disabled_at: nowMs, updated_at: nowMs }).where("account_id", "=", accountId).execute();
}

/**
 * Ends the account's run of failures (the webhook was switched on again or pointed elsewhere): its
 * endpoint counts as healthy until an attempt fails. The last success is kept.
 */
export async function clearEndpointRun(db: Executor, accountId: string, nowMs: number): Promise<void> {
  await db
    .updateTable("endpoint_health")
    .set({ failing_since: null, last_status_code: null, last_error: null, disabled_at: null, updated_at: nowMs })
    .where("account_id", "=", accountId)
    .execute();
}

/**
 * What switching an account's webhook on (again), or pointing it elsewhere, means for delivery:
 * the endpoint starts with a clean record, what waited for it goes out now, and the notice that
 * it was switched off is resolved. Call it in the transaction that stores the settings.
 */
export async function webhookSwitchedOn(db: Executor, accountId: string, nowMs: number): Promise<void> {
  await clearEndpointRun(db, accountId, nowMs);
  await sendWaitingDeliveries(db, accountId, nowMs);
  await resolveNotices(db, { type: "endpoint_disabled", accountIds: [accountId] }, nowMs);
}

/** The account's stored endpoint health; undefined while its webhook was never attempted. */
export async function readEndpointRow(db: Executor, accountId: string): Promise<EndpointHealthTable | undefined> {
  const row = await db.selectFrom("endpoint_health").selectAll().where("account_id", "=", accountId).executeTakeFirst();
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
