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
 * `sql` with every `?` placeholder outside string literals, quoted identifiers and comments written
 * `+?`, and the one of a LIMIT or OFFSET `+? + 0`. Numbered placeholders (`?NNN`) are left alone.
 */
export function planStableSql(sql: string): string {
  if (!sql.includes("?")) return sql;
  let out = "";
  let at = 0;
  // The last word read outside literals, lower-cased: a placeholder after `limit` or `offset` is one.
  let lastWord = "";
  while (at < sql.length) {
    const c = sql[at];
    if (c === "'" || c === '"' || c === "`" || c === "[") {
      const end = closingOf(sql, at);
      out += sql.slice(at, end);
      at = end;
      lastWord = "";
    } else if (c === "-" && sql[at + 1] === "-") {
      const end = sql.indexOf("\n", at);
      const stop = end === -1 ? sql.length : end;
      out += sql.slice(at, stop);
      at = stop;
    } else if (c === "/" && sql[at + 1] === "*") {
      const end = sql.indexOf("*/", at + 2);
      const stop = end === -1 ? sql.length : end + 2;
      out += sql.slice(at, stop);
      at = stop;
    } else if (c === "?") {
      if (/[0-9]/.test(sql[at + 1] ?? "")) {
        out += c;
      } else {
        out += lastWord === "limit" || lastWord === "offset" ? "+? + 0" : "+?";
      }
      at++;
      lastWord = "";
    } else if (/[A-Za-z_]/.test(c)) {
      let end = at + 1;
      while (end < sql.length && /[A-Za-z0-9_$]/.test(sql[end])) end++;
      lastWord = sql.slice(at, end).toLowerCase();
      out += sql.slice(at, end);
      at = end;
    } else {
      if (!/\s/.test(c)) lastWord = "";
      out += c;
      at++;
    }
  }
  return out;
}

/** Where the literal or quoted identifier opening at `at` ends (just past its closing quote); a doubled quote is part of it. */
function closingOf(sql: string, at: number): number {
  const close = sql[at] === "[" ? "]" : sql[at];
  let i = at + 1;
  for (;;) {
    const next = sql.indexOf(close, i);
    if (next === -1) return sql.length;
    if (close !== "]" && sql[next + 1] === close) {
      i = next + 2;
      continue;
    }
    return next + 1;
  }
}
