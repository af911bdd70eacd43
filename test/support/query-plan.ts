import type { CompiledQuery, Kysely, KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryId, QueryResult, RootOperationNode, UnknownRow } from "kysely";
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

/**
 * `db` as seen by code under test, calling `onQuery` with each statement it runs, compiled as it is
 * sent: those built with the query builder (through a plugin, where Kysely compiles them) and the
 * hand-written ones run with `executeQuery` (db/statements.ts). Inside a transaction the code opens
 * on it, only the built ones are seen: the transaction's own `executeQuery` is Kysely's.
 */
export function recordingDb<D extends Kysely<any>>(db: D, onQuery: (query: CompiledQuery) => void): D {
  const capture: KyselyPlugin = {
    transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
      onQuery(db.getExecutor().compileQuery(args.node, args.queryId));
      return args.node;
    },
    transformResult: (args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> => Promise.resolve(args.result),
  };
  const plugged = db.withPlugin(capture) as D;
  return new Proxy(plugged, {
    get(target, prop) {
      if (prop === "executeQuery") {
        return (query: CompiledQuery, queryId?: QueryId) => {
          onQuery(query);
          return target.executeQuery(query, queryId);
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** The statements `read` runs on `db`, compiled as they were sent (for their plans). */
export async function statementsOf<D extends Kysely<any>>(db: D, read: (db: D) => Promise<unknown>): Promise<CompiledQuery[]> {
  const seen: CompiledQuery[] = [];
  await read(recordingDb(db, (q) => seen.push(q)));
  return seen;
}
