import { Kysely, PostgresAdapter, PostgresDialect, type PostgresPool, type PostgresPoolClient } from "kysely";
import type pg from "pg";
import { pgDriver } from "./driver.ts";
import { DatabaseTimeout } from "../../availability.ts";
import type { Db } from "../../executor.ts";
import type { DB } from "../../schema.ts";
import type { CarriesDialect } from "../../statements.ts";
import { sqliteSchemaOnPostgres } from "./schema-plugin.ts";
import { preparedName } from "./prepared.ts";

// The connection to PostgreSQL: node-postgres through Kysely's own PostgresDialect, how values
// come back, and the name of the dialect its adapter carries.

/** int8 (count(*), bigint columns) and numeric (sum of bigint): numbers, as bun:sqlite gives them. */
const INT8 = 20;
const NUMERIC = 1700;
const types = {
  getTypeParser(oid: number, format?: string) {
    if (oid === INT8 || oid === NUMERIC) return (text: string) => (text === null ? null : Number(text));
    return pgDriver().types.getTypeParser(oid, format as any);
  },
};

/** Kysely's PostgreSQL adapter, naming its dialect: each folder's hand-written statements are picked by it (`db/statements.ts`). */
class PostgresAdapterNamed extends PostgresAdapter implements CarriesDialect {
  readonly dialect = "postgres" as const;
}

/** Kysely's PostgresDialect whose adapter names it. */
class ChainwatchPostgresDialect extends PostgresDialect {
  override createAdapter() {
    return new PostgresAdapterNamed();
  }
}

/**
 * How long a query may wait: for a connection (pool slot and connect), and for its answer; and how
 * many connections the pool may hold at once.
 */
export type PostgresPoolOptions = { connectTimeoutMs: number; queryTimeoutMs: number; poolSize: number };

const DEFAULTS: PostgresPoolOptions = { connectTimeoutMs: 5_000, queryTimeoutMs: 10_000, poolSize: 10 };

/**
 * A Kysely over a pool of up to `poolSize` connections to `url`. Nothing connects until the first query. Every
 * wait is bounded, so a database that restarts, stalls or drops packets makes a request fail
 * (DATABASE_UNAVAILABLE, src/db/availability.ts) instead of hang: getting a connection takes at
 * most `connectTimeoutMs`, and a statement at most `queryTimeoutMs` (the server's
 * statement_timeout, and the same bound on the client for a server that does not answer at all).
 * `queryTimeoutMs` 0: statements unbounded (the connections migrations run on).
 */
export function openPostgres(url: string, options: PostgresPoolOptions = DEFAULTS): Db {
  const pool = new (pgDriver().Pool)({
    connectionString: url,
    max: options.poolSize,
    types,
    idleTimeoutMillis: 10_000,
    connectionTimeoutMillis: options.connectTimeoutMs,
    statement_timeout: options.queryTimeoutMs,
    // A server that vanished without closing the socket is noticed by the kernel's probes.
    keepAlive: true,
  });
  // An idle client that loses its server (restart, kill) emits `error` on the pool; without a
  // listener that would end the process. The next query simply opens a new connection.
  pool.on("error", () => {});
  return new Kysely<DB>({ dialect: new ChainwatchPostgresDialect({ pool: boundedPool(pool, options.queryTimeoutMs) }), plugins: [sqliteSchemaOnPostgres] });
}

/** SQLSTATE of "cached plan must not change result type" (feature_not_supported). */
const CACHED_PLAN_CHANGED = "0A000";

type PoolClient = pg.PoolClient & { connection?: { stream?: { destroy(): void } } };

/**
 * The pool as Kysely uses it (`connect`, then `query` and `release` on the client, `end`), with
 * each query's wait for an answer bounded on the client side too: the server's statement_timeout
 * cannot fire on a server that is stopped or cut off. A query that times out breaks its
 * connection for good (its socket destroyed, the client dropped from the pool on release): a
 * late answer, or the rest of a transaction left open on the server, can never reach the next
 * user of that connection.
 */
function boundedPool(pool: pg.Pool, queryTimeoutMs: number): PostgresPool {
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = (await pool.connect()) as PoolClient;
      // A checked-out client whose socket breaks emits `error`; the failed query already says so.
      if (client.listenerCount("error") === 0) client.on("error", () => {});
      let broken: Error | null = null;
      return {
        query: ((text: string, values: ReadonlyArray<unknown>) => {
          if (broken) return Promise.reject(broken);
          return new Promise<pg.QueryResult>((resolve, reject) => {
            const timer =
              queryTimeoutMs > 0
                ? setTimeout(() => {
                    broken = new DatabaseTimeout(queryTimeoutMs);
                    reject(broken);
                    // node-postgres's own way to unblock a connection whose query was sent.
                    client.connection?.stream?.destroy();
                  }, queryTimeoutMs)
                : undefined;
            // The hand-written statements go as named prepared statements (prepared.ts).
            const name = preparedName(text);
            (name === undefined ? client.query(text, [...values]) : client.query({ name, text, values: [...values] })).then(
              (r) => {
                clearTimeout(timer);
                resolve(r);
              },
              (e) => {
                clearTimeout(timer);
                // A table under a prepared statement changed its columns (a migration by a newer
                // daemon): the server refuses the statement on this connection from now on, so the
                // connection is dropped on release and the next one prepares it afresh.
                if (name !== undefined && (e as { code?: string }).code === CACHED_PLAN_CHANGED) broken = e as Error;
                reject(e);
              },
            );
          });
        }) as PostgresPoolClient["query"],
        release() {
          client.release(broken ?? undefined);
        },
      };
    },
    end: () => pool.end(),
  };
}
