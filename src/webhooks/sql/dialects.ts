import { type PerDialect, perDialect } from "../../db/statements.ts";
import { postgresEndpointHealthStatements } from "./postgres.ts";
import { sqliteEndpointHealthStatements } from "./sqlite.ts";
import type { EndpointHealthStatements } from "./statements.ts";

/** The statements of `endpoint_health` in each dialect. */
export const endpointHealthStatementSets: PerDialect<EndpointHealthStatements> = {
  sqlite: sqliteEndpointHealthStatements,
  postgres: postgresEndpointHealthStatements,
};

/** The statements of `endpoint_health` in the dialect of the database `db` was opened with. */
export const endpointHealthStatements = perDialect(endpointHealthStatementSets);
