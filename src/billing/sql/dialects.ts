import { type PerDialect, perDialect } from "../../db/statements.ts";
import { postgresBillingStatements } from "./postgres.ts";
import { sqliteBillingStatements } from "./sqlite.ts";
import type { BillingStatements } from "./statements.ts";

/** The statements of billing in each dialect. */
export const billingStatementSets: PerDialect<BillingStatements> = { sqlite: sqliteBillingStatements, postgres: postgresBillingStatements };

/** The statements of billing in the dialect of the database `db` was opened with. */
export const billingStatements = perDialect(billingStatementSets);
