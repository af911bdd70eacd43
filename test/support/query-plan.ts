import type { CompiledQuery } from "kysely";
import type { Executor } from "../../src/db/database.ts";

/**
 * SQLite's plan of a compiled query, one line a step (`EXPLAIN QUERY PLAN`'s details): what its
 * planner chooses by the query alone, on a database of any size, since chainwatch keeps no
 * statistics. Not for a DELETE: bun:sqlite leaves an explained DELETE in progress on the
 * connection, and the next COMMIT fails; explain its WHERE as a select's.
 */
export async function sqlitePlan(db: Executor, query: CompiledQuery): Promise<string> {
  const { rows } = await db.executeQuery<{ detail: string }>({ ...query, sql: `explain query plan ${query.sql}` });
  return rows.map((r) => r.detail).join("\n");
}
