import { type PerDialect, perDialect } from "../../db/statements.ts";
import { postgresDeliveryStatements } from "./postgres.ts";
import { sqliteDeliveryStatements } from "./sqlite.ts";
import type { DeliveryStatements } from "./statements.ts";

/** The statements of the outbox in each dialect. */
export const deliveryStatementSets: PerDialect<DeliveryStatements> = { sqlite: sqliteDeliveryStatements, postgres: postgresDeliveryStatements };

/** The statements of the outbox in the dialect of the database `db` was opened with. */
export const deliveryStatements = perDialect(deliveryStatementSets);
