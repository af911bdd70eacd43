import { type CompiledQuery, createQueryId, RawNode } from "kysely";

// The hot paths (delivery outcomes, event inserts, usage, the account snapshot) run fixed SQL text
// instead of building a Kysely query per call: at thousands of statements a second, building and
// compiling costs more than SQLite spends running them, and fixed text lets the driver's
// statement cache reuse SQLite's compiled statement. Every such statement goes through here and is
// written once, in SQLite's dialect; `forPostgres` below is the one place that translates it.

/** The statements made by `fixedStatement`: only these are translated for PostgreSQL. */
const fixed = new WeakSet<object>();

/**
 * A compiled query over fixed SQL with `?` placeholders, run with `db.executeQuery` (same
 * connection, same transaction). Not `CompiledQuery.raw`: it freezes the parameter array, and
 * bun:sqlite binds a frozen array about three times slower (a multi-row INSERT has hundreds).
 */
export function fixedStatement<R = unknown>(sql: string, parameters: unknown[]): CompiledQuery<R> {
  const query = { sql, parameters, query: RawNode.createWithSql(sql), queryId: createQueryId() };
  fixed.add(query);
  return query;
}

/** `?,?,…,?` for an IN list or a row of `n` values. */
export function placeholders(n: number): string {
  return "?,".repeat(n - 1) + "?";
}

const translated = new Map<string, string>();

/**
 * The PostgreSQL text of a query: a fixed statement gets `$1, $2, …` for its `?` placeholders and
 * loses SQLite's planner hints (`+column`, a unary plus that keeps SQLite off an index; PostgreSQL
 * has no unary plus on text). Fixed SQL holds no string literal containing `?` or `+`. Texts are
 * few and repeat, so each is translated once.
 */
export function forPostgres(query: CompiledQuery): CompiledQuery {
  if (!fixed.has(query)) return query;
  let sql = translated.get(query.sql);
  if (sql === undefined) {
    let n = 0;
    sql = query.sql.replace(/\?/g, () => `$${++n}`).replace(/([\s(])\+(?=[a-z_])/g, "$1");
    if (translated.size > 4096) translated.clear();
    translated.set(query.sql, sql);
  }
  return { ...query, sql };
}
