import { textPerCount } from "../../db/dialect/compiled.ts";
import { rowsOf } from "../../db/dialect/postgres/placeholders.ts";
import { preparedQuery } from "../../db/dialect/postgres/prepared.ts";
import { type EndpointHealthStatements, OUTCOME_COLUMNS, outcomeParams } from "./statements.ts";

// The statement of `endpoint_health` in PostgreSQL's SQL (what it does: statements.ts), a named
// prepared statement on every connection.

// A success in the batch ends the stored run of failures (the batch's failures after it start the
// next one); a batch of failures only extends the stored run. The last error is the batch's.
const ENDPOINT_OUTCOMES = textPerCount(
  (n) => `insert into endpoint_health (${OUTCOME_COLUMNS}) values ${rowsOf(n, 6)}
on conflict (endpoint_id) do update set
  failing_since = case when excluded.last_success_at is null then coalesce(endpoint_health.failing_since, excluded.failing_since) else excluded.failing_since end,
  last_success_at = greatest(endpoint_health.last_success_at, excluded.last_success_at),
  last_status_code = excluded.last_status_code, last_error = excluded.last_error, updated_at = excluded.updated_at
returning endpoint_id, failing_since, disabled_at`,
);

export const postgresEndpointHealthStatements: EndpointHealthStatements = {
  recordEndpointOutcomes: (rows, nowMs) => preparedQuery(ENDPOINT_OUTCOMES(rows.length), outcomeParams(rows, nowMs)),
};
