import { compiled, textPerCount } from "../../db/dialect/compiled.ts";
import { rowsOf } from "../../db/dialect/sqlite/placeholders.ts";
import { type EndpointHealthStatements, OUTCOME_COLUMNS, outcomeParams } from "./statements.ts";

// The statement of `endpoint_health` in SQLite's SQL (what it does: statements.ts).

// A success in the batch ends the stored run of failures (the batch's failures after it start the
// next one); a batch of failures only extends the stored run. The last error is the batch's.
// SQLite's two-argument max() is null when either is: each side falls back to the other.
const ENDPOINT_OUTCOMES = textPerCount(
  (n) => `insert into endpoint_health (${OUTCOME_COLUMNS}) values ${rowsOf(n, 6)}
on conflict (endpoint_id) do update set
  failing_since = case when excluded.last_success_at is null then coalesce(endpoint_health.failing_since, excluded.failing_since) else excluded.failing_since end,
  last_success_at = max(coalesce(endpoint_health.last_success_at, excluded.last_success_at), coalesce(excluded.last_success_at, endpoint_health.last_success_at)),
  last_status_code = excluded.last_status_code, last_error = excluded.last_error, updated_at = excluded.updated_at
returning endpoint_id, failing_since, disabled_at`,
);

export const sqliteEndpointHealthStatements: EndpointHealthStatements = {
  recordEndpointOutcomes: (rows, nowMs) => compiled(ENDPOINT_OUTCOMES(rows.length), outcomeParams(rows, nowMs)),
};
