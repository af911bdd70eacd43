import { type CompiledQuery, createQueryId, RawNode } from "kysely";

// What the dialects' statement files build their compiled queries with.

/**
 * A compiled query of hand-written SQL, run with `executeQuery` (same connection, same
 * transaction). Not `CompiledQuery.raw`: it freezes the parameter array, and bun:sqlite binds a
 * frozen array about three times slower (a multi-row INSERT has hundreds).
 */
export function compiled<R = unknown>(sql: string, parameters: unknown[]): CompiledQuery<R> {
  return { sql, parameters, query: rawNodeOf(sql), queryId: createQueryId() };
}

/** Texts whose raw node is kept; past this many (texts built per call) the cache starts afresh. */
const MAX_NODES = 2048;
const nodes = new Map<string, RawNode>();

/**
 * The raw node of a text, built (and frozen) once: the texts are the statement files' constants
 * and their per-count variants, run thousands of times a second by the delivery loop.
 */
function rawNodeOf(sql: string): RawNode {
  let node = nodes.get(sql);
  if (node === undefined) {
    if (nodes.size >= MAX_NODES) nodes.clear();
    nodes.set(sql, (node = RawNode.createWithSql(sql)));
  }
  return node;
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
