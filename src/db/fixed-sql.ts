import { type CompiledQuery, createQueryId, RawNode } from "kysely";

// The hot paths (delivery outcomes, event inserts, usage, the account snapshot) run fixed SQL text
// instead of building a Kysely query per call: at thousands of statements a second, building and
// compiling costs more than SQLite spends running them, and fixed text lets the driver's
// statement cache reuse SQLite's compiled statement. Every such statement goes through here, so
// this is where a second dialect would translate `?` placeholders (PostgreSQL's `$n`).

/**
 * A compiled query over fixed SQL with `?` placeholders, run with `db.executeQuery` (same
 * connection, same transaction). Not `CompiledQuery.raw`: it freezes the parameter array, and
 * bun:sqlite binds a frozen array about three times slower (a multi-row INSERT has hundreds).
 */
export function fixedStatement<R = unknown>(sql: string, parameters: unknown[]): CompiledQuery<R> {
  return { sql, parameters, query: RawNode.createWithSql(sql), queryId: createQueryId() };
}

/** `?,?,…,?` for an IN list or a row of `n` values. */
export function placeholders(n: number): string {
  return "?,".repeat(n - 1) + "?";
}
