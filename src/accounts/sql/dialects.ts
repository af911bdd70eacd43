import { type PerDialect, perDialect } from "../../db/statements.ts";
import { postgresAccountStatements } from "./postgres.ts";
import { sqliteAccountStatements } from "./sqlite.ts";
import type { AccountStatements } from "./statements.ts";

/** The statements of the account views in each dialect. */
export const accountStatementSets: PerDialect<AccountStatements> = { sqlite: sqliteAccountStatements, postgres: postgresAccountStatements };

/** The statements of the account views in the dialect of the database `db` was opened with. */
export const accountStatements = perDialect(accountStatementSets);
