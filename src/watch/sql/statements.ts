import type { CompiledQuery } from "kysely";
import type { NewEvent } from "../../db/schema.ts";

// The hot-path statements of `events` (why hand-written: `src/db/statements.ts`): what each does,
// here; each dialect's text in `sqlite.ts` and `postgres.ts` beside this file, which bind the same
// parameters, built here once for both.

/** The hand-written statements of `events`. Those over a list take at most what their caller chunks them to. */
export type EventStatements = {
  /** One multi-row INSERT of events, `seq` following the given order. */
  insertEvents(rows: readonly NewEvent[]): CompiledQuery;
};

/** The columns an event insert writes, in the order `eventParams` binds them. */
export const EVENT_COLUMNS = "id, account_id, type, network, watch_id, dedupe_key, body, created_at, block_height, block_hash";

/** The parameters of a multi-row INSERT of events: ten a row, as EVENT_COLUMNS names them. */
export function eventParams(rows: readonly NewEvent[]): unknown[] {
  const params: unknown[] = [];
  for (const r of rows) params.push(r.id, r.account_id, r.type, r.network, r.watch_id ?? null, r.dedupe_key, r.body, r.created_at, r.block_height ?? null, r.block_hash ?? null);
  return params;
}
