import type { Db } from "../db/database.ts";
import type { Clock } from "../lib/clock.ts";
import { type InvalidInput, isFailure, type Result } from "../lib/error-codes.ts";
import { integerParam, type RawQuery } from "../lib/query-params.ts";
import { type UsagePoint, usageSeries } from "./usage.ts";

/** The days a usage report covers unless asked, and the most it covers. */
export const DEFAULT_USAGE_DAYS = 30;
export const MAX_USAGE_DAYS = 90;

/**
 * GET /v1/account/usage: `days` (1..90, 30 when absent; empty or repeated is not an integer) UTC
 * days of usage, oldest first, today last.
 */
export async function usageReport(
  deps: { db: Db; clock: Clock },
  accountId: string,
  query: RawQuery,
): Promise<Result<{ days: number; series: UsagePoint[] }, InvalidInput>> {
  const days = integerParam(query, "days", { min: 1, max: MAX_USAGE_DAYS, fallback: DEFAULT_USAGE_DAYS });
  if (isFailure(days)) return days;
  return { ok: true, days, series: await usageSeries(deps.db, accountId, deps.clock.now(), days) };
}
