import type { Kysely } from "kysely";
import { isPostgres } from "../dialect/detect.ts";
import { postgresRateWindows } from "../dialect/postgres/rate-windows.ts";

/**
 * The per-second budgets that make the rate limits hold across daemons (docs/operations.md). PostgreSQL
 * only: on SQLite one daemon counts in memory.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) await postgresRateWindows.create(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) await postgresRateWindows.drop(db);
}
