import { type PerDialect, perDialect } from "../../db/statements.ts";
import { postgresPaymentStatements } from "./postgres.ts";
import { sqlitePaymentStatements } from "./sqlite.ts";
import type { PaymentStatements } from "./statements.ts";

/** The statements of payment orders in each dialect. */
export const paymentStatementSets: PerDialect<PaymentStatements> = { sqlite: sqlitePaymentStatements, postgres: postgresPaymentStatements };

/** The statements of payment orders in the dialect of the database `db` was opened with. */
export const paymentStatements = perDialect(paymentStatementSets);
