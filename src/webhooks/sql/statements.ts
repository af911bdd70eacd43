import type { CompiledQuery } from "kysely";

// The hot-path statement of `endpoint_health` (why hand-written: `src/db/statements.ts`): what it
// does, here; each dialect's text in `sqlite.ts` and `postgres.ts` beside this file, which bind the
// same parameters, built here once for both.

/**
 * What one settlement batch saw of a webhook endpoint (health-store.ts): its last success, and the
 * failures after it (the first one's time, the last one's answer); the failure fields are null
 * when the batch ended on a success.
 */
export type EndpointOutcome = {
  endpointId: string;
  lastSuccessAt: number | null;
  failingSince: number | null;
  lastStatusCode: number | null;
  lastError: string | null;
};

/** An endpoint's state after a batch was recorded: enough to tell whether its run of failures is long enough to disable it. */
export type EndpointStreakRow = { endpoint_id: string; failing_since: number | string | null; disabled_at: number | string | null };

/** The hand-written statements of `endpoint_health`. Those over a list take at most what their caller chunks them to. */
export type EndpointHealthStatements = {
  /**
   * Folds a batch's endpoint outcomes (one row per endpoint, in endpoint id order) into
   * `endpoint_health`: a success in the batch ends the stored run of failures (those after it
   * start a new one), a batch of failures only extends it; returns each row's run and whether it
   * disabled the endpoint.
   */
  recordEndpointOutcomes(rows: readonly EndpointOutcome[], nowMs: number): CompiledQuery<EndpointStreakRow>;
};

/** The columns an outcome row writes, in the order `outcomeParams` binds them. */
export const OUTCOME_COLUMNS = "endpoint_id, last_success_at, failing_since, last_status_code, last_error, updated_at";

/** The parameters of a multi-row upsert of outcomes: six a row, as OUTCOME_COLUMNS names them. */
export function outcomeParams(rows: readonly EndpointOutcome[], nowMs: number): unknown[] {
  const params: unknown[] = [];
  for (const r of rows) params.push(r.endpointId, r.lastSuccessAt, r.failingSince, r.lastStatusCode, r.lastError, nowMs);
  return params;
}
