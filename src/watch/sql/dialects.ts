import { type PerDialect, perDialect } from "../../db/statements.ts";
import { postgresEventStatements, postgresWatchStatements } from "./postgres.ts";
import { sqliteEventStatements, sqliteWatchStatements } from "./sqlite.ts";
import type { EventStatements, WatchStatements } from "./statements.ts";

/** The statements of `events` in each dialect. */
export const eventStatementSets: PerDialect<EventStatements> = { sqlite: sqliteEventStatements, postgres: postgresEventStatements };

/** The statements of `events` in the dialect of the database `db` was opened with. */
export const eventStatements = perDialect(eventStatementSets);

/** The statements of adding a watch in each dialect. */
export const watchStatementSets: PerDialect<WatchStatements> = { sqlite: sqliteWatchStatements, postgres: postgresWatchStatements };

/** The statements of adding a watch in the dialect of the database `db` was opened with. */
export const watchStatements = perDialect(watchStatementSets);
