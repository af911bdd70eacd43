// SQLite prepares a statement again on every new binding of a parameter whose value its planner
// read while preparing it: `sqlite3VdbeSetVarmask` marks the parameter, and binding it afresh
// expires the statement. The planner reads bound values in three places chainwatch's statements
// meet all the time:
//
// - a `column = ?` term checked against a partial index's condition (`status = 'canonical'`): the
//   follower's tip read, the claim's `replay = ?`;
// - the same in a join, where the term is first propagated as a constant (`a.id = ?` joined to
//   `plans`, a delivery by id joined to its body);
// - a bare `limit ?` or `offset ?`, whose value is compiled into the statement.
//
// So a statement the cache keeps was still compiled anew on each run: 10–60 µs for the statements
// above, more than running them (docs/benchmarks.md). SQLite's own remedy, the query planner
// stability guarantee (SQLITE_DBCONFIG_ENABLE_QPSG), is a connection flag bun:sqlite cannot set.
// This gives the same: every placeholder is written `+?` (a unary plus, which returns its operand
// unchanged, value and type, so the planner sees an expression and reads no value), and a LIMIT or
// OFFSET `+? + 0`. Nothing a statement returns or changes differs; a plan that only a bound value
// made possible (a partial index matched through the value of `status = ?`) is not chosen, as the
// statements here name such states as literals anyway.

/**
 * What the rewrite reads, left to right, in one pass: a string literal, a quoted identifier or a
 * comment (kept whole), a LIMIT's or OFFSET's placeholder, or any other placeholder. A numbered
 * one (`?NNN`) is matched by neither placeholder branch.
 */
const TOKENS = /('(?:[^']|'')*'|"(?:[^"]|"")*"|`(?:[^`]|``)*`|\[[^\]]*\]|--[^\n]*|\/\*[\s\S]*?(?:\*\/|$))|\b(limit|offset)(\s*)\?(?![0-9])|\?(?![0-9])/gi;

/**
 * `sql` with every `?` placeholder outside string literals, quoted identifiers and comments written
 * `+?`, and the one of a LIMIT or OFFSET `+? + 0`. Numbered placeholders (`?NNN`) are left alone.
 */
export function planStableSql(sql: string): string {
  if (!sql.includes("?")) return sql;
  return sql.replace(TOKENS, (_token: string, kept: string | undefined, clause: string | undefined, space: string | undefined) =>
    kept !== undefined ? kept : clause !== undefined ? `${clause}${space}+? + 0` : "+?",
  );
}
