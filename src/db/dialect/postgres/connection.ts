import { Kysely, PostgresAdapter, PostgresDialect } from "kysely";
import pg from "pg";
import type { Db } from "../../executor.ts";
import type { DB } from "../../schema.ts";
import type { CarriesStatements } from "../../statements.ts";
import { sqliteSchemaOnPostgres } from "./schema-plugin.ts";
import { postgresStatements } from "./statements.ts";

// The connection to PostgreSQL: node-postgres through Kysely's own PostgresDialect, how values
// come back, and the statements this dialect brings.

/** int8 (count(*), bigint columns) and numeric (sum of bigint): numbers, as bun:sqlite gives them. */
const INT8 = 20;
const NUMERIC = 1700;
const types = {
  getTypeParser(oid: number, format?: string) {
    if (oid === INT8 || oid === NUMERIC) return (text: string) => (text === null ? null : Number(text));
    return pg.types.getTypeParser(oid, format as any);
  },
};

/** Kysely's PostgreSQL adapter, carrying PostgreSQL's hand-written statements (`statementsOf`). */
class PostgresAdapterWithStatements extends PostgresAdapter implements CarriesStatements {
  readonly statements = postgresStatements;
}

/** Kysely's PostgresDialect whose adapter brings PostgreSQL's statements. */
class ChainwatchPostgresDialect extends PostgresDialect {
  override createAdapter() {
    return new PostgresAdapterWithStatements();
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
