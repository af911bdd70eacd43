import type { Kysely, Transaction } from "kysely";
import type { DB } from "./schema.ts";

// The types every repository names, apart from `database.ts` so that the dialect folders, which
// `database.ts` opens, can name them without importing it back.

/** The database: a pool of connections on PostgreSQL, the one connection on SQLite. */
export type Db = Kysely<DB>;

/** What repositories take: the database, or a transaction a caller composes several writes in. */
export type Executor = Kysely<DB> | Transaction<DB>;

/** The SQL dialects chainwatch runs on. */
export type DialectName = "sqlite" | "postgres";
