import { type CompiledQuery, type DatabaseConnection, type Driver, Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import type { Db } from "../../executor.ts";
import { forPostgres } from "../../fixed-sql.ts";
import type { DB } from "../../schema.ts";
import { sqliteSchemaOnPostgres } from "./schema-plugin.ts";

// The connection to PostgreSQL: node-postgres through Kysely's own PostgresDialect, and how values
// come back.

/** int8 (count(*), bigint columns) and numeric (sum of bigint): numbers, as bun:sqlite gives them. */
const INT8 = 20;
const NUMERIC = 1700;
const types = {
  getTypeParser(oid: number, format?: string) {
    if (oid === INT8 || oid === NUMERIC) return (text: string) => (text === null ? null : Number(text));
    return pg.types.getTypeParser(oid, format as any);
  },
};

/** Kysely's PostgresDialect whose connections translate fixed statements (`?` → `$n`). */
class ChainwatchPostgresDialect extends PostgresDialect {
  override createDriver(): Driver {
    const driver = super.createDriver();
    const acquire = driver.acquireConnection.bind(driver);
    const patched = new WeakSet<DatabaseConnection>();
    driver.acquireConnection = async () => {
      const connection = await acquire();
      if (!patched.has(connection)) {
        const execute = connection.executeQuery.bind(connection);
        connection.executeQuery = <R>(q: CompiledQuery) => execute<R>(forPostgres(q));
        patched.add(connection);
      }
      return connection;
    };
    return driver;
  }
}

/** A Kysely over a pool of 10 connections to `url`. Nothing connects until the first query. */
export function openPostgres(url: string): Db {
  const pool = new pg.Pool({ connectionString: url, max: 10, types, idleTimeoutMillis: 10_000 });
  // An idle client that loses its server (restart, kill) emits `error` on the pool; without a
  // listener that would end the process. The next query simply opens a new connection.
  pool.on("error", () => {});
  return new Kysely<DB>({ dialect: new ChainwatchPostgresDialect({ pool }), plugins: [sqliteSchemaOnPostgres] });
}
