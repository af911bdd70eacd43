import type { Kysely } from "kysely";
import { isPostgres } from "../dialect/detect.ts";
import { postgresSlidingBudget } from "../dialect/postgres/sliding-budget.ts";

/**
 * The sliding one-second budgets of the API and `/rpc` rate limits across daemons
 * (docs/operations.md). PostgreSQL only: on SQLite one daemon counts in memory.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) await postgresSlidingBudget.create(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) await postgresSlidingBudget.drop(db);
}
