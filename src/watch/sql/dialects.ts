import { type PerDialect, perDialect } from "../../db/statements.ts";
import { postgresEventStatements } from "./postgres.ts";
import { sqliteEventStatements } from "./sqlite.ts";
import type { EventStatements } from "./statements.ts";

/** The statements of `events` in each dialect. */
export const eventStatementSets: PerDialect<EventStatements> = { sqlite: sqliteEventStatements, postgres: postgresEventStatements };

/** The statements of `events` in the dialect of the database `db` was opened with. */
export const eventStatements = perDialect(eventStatementSets);
