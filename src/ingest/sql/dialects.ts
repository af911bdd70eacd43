import { type PerDialect, perDialect } from "../../db/statements.ts";
import { postgresChainStatements } from "./postgres.ts";
import { sqliteChainStatements } from "./sqlite.ts";
import type { ChainStatements } from "./statements.ts";

/** The statements of the stored chain in each dialect. */
export const chainStatementSets: PerDialect<ChainStatements> = { sqlite: sqliteChainStatements, postgres: postgresChainStatements };

/** The statements of the stored chain in the dialect of the database `db` was opened with. */
export const chainStatements = perDialect(chainStatementSets);
