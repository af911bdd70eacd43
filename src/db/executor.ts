import type { Kysely, Transaction } from "kysely";
import type { DB } from "./schema.ts";

// The types every repository names, and how one runs in its caller's transaction, apart from
// `database.ts` so that the dialect folders (and the migrations), which `database.ts` opens, can
// name them without importing it back.

/** The database: a pool of connections on PostgreSQL, the one connection on SQLite. */
export type Db = Kysely<DB>;

/** What repositories take: the database, or a transaction a caller composes several writes in. */
export type Executor = Kysely<DB> | Transaction<DB>;

/** The SQL dialects chainwatch runs on. */
export type DialectName = "sqlite" | "postgres";

/** Runs `fn` in the caller's transaction, or in a write transaction of its own when given the database. */
export function inTransaction<D, T>(db: Kysely<D> | Transaction<D>, fn: (trx: Transaction<D>) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db as Transaction<D>) : db.transaction().execute(fn);
}
