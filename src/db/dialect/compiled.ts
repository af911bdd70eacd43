import { type CompiledQuery, createQueryId, RawNode } from "kysely";

// What the dialects' statement files build their compiled queries with.

/**
 * A compiled query of hand-written SQL, run with `executeQuery` (same connection, same
 * transaction). Not `CompiledQuery.raw`: it freezes the parameter array, and bun:sqlite binds a
 * frozen array about three times slower (a multi-row INSERT has hundreds).
 */
export function compiled<R = unknown>(sql: string, parameters: unknown[]): CompiledQuery<R> {
  return { sql, parameters, query: RawNode.createWithSql(sql), queryId: createQueryId() };
}

/**
 * The text of a statement over `n` items (an IN list, a multi-row insert), written once per `n`:
 * callers chunk their lists, so there are few sizes, and each is built only the first time.
 */
export function textPerCount(textOf: (n: number) => string): (n: number) => string {
  const texts = new Map<number, string>();
  return (n) => {
    let text = texts.get(n);
    if (text === undefined) texts.set(n, (text = textOf(n)));
    return text;
  };
}
