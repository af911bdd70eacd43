import type { Db } from "../db/database.ts";
import { lastUtcDays } from "../lib/time.ts";
import { MAX_USAGE_DAYS } from "./usage-report.ts";

/**
 * Deletes the daily usage rows (credits, deliveries, events and /rpc calls per account and UTC day)
 * older than the longest usage report, `MAX_USAGE_DAYS` days ending today: no view reads them.
 * One statement; the table holds a row per account and active day.
 */
export async function pruneUsage(db: Db, nowMs: number): Promise<number> {
  const oldestShown = lastUtcDays(nowMs, MAX_USAGE_DAYS)[0];
  const result = await db.deleteFrom("usage_daily").where("day", "<", oldestShown).executeTakeFirst();
  return Number(result.numDeletedRows);
}
