import type { Db, Executor } from "../db/database.ts";
import { lockOrder } from "../db/lock-order.ts";
import { lastUtcDays, utcDay } from "../lib/time.ts";
import { billingStatements } from "./sql/dialects.ts";
import type { UsageAddition } from "./sql/statements.ts";

// A hand-written statement (sql/) rather than a query built per call: the delivery
// loop adds usage in every commit.

// Rows per statement: 500 × 5 parameters stays far below SQLite's bound-parameter cap.
const CHUNK = 500;

export type UsageAdd = { credits?: number; deliveries?: number; events?: number };

/** Adds to today's usage row of an account (created on first use). */
export function recordUsage(db: Executor, accountId: string, nowMs: number, add: UsageAdd): Promise<void> {
  return addUsage(db, nowMs, new Map([[accountId, add]]));
}

/**
 * Adds to today's usage rows of many accounts, one multi-row upsert per 500 accounts, in lock
 * order (db/lock-order.ts): a settlement and an ingest each add to several accounts' rows.
 */
export async function addUsage(db: Executor, nowMs: number, adds: ReadonlyMap<string, UsageAdd>): Promise<void> {
  const statements = billingStatements(db);
  const day = utcDay(nowMs);
  const rows: UsageAddition[] = [];
  for (const [accountId, add] of adds) rows.push({ accountId, credits: add.credits ?? 0, deliveries: add.deliveries ?? 0, events: add.events ?? 0 });
  if (rows.length > 1) rows.sort((a, z) => lockOrder(a.accountId, z.accountId));
  for (let i = 0; i < rows.length; i += CHUNK) {
    await db.executeQuery(statements.addUsage(day, rows.slice(i, i + CHUNK)));
  }
}

export type UsagePoint = { date: string; credits: number; deliveries: number; events: number; rpc_calls: number };

/** Exactly `days` UTC days, oldest first, today last, days without usage zero-filled. */
export async function usageSeries(db: Db, accountId: string, nowMs: number, days: number): Promise<UsagePoint[]> {
  const dates = lastUtcDays(nowMs, days);
  const rows = await db
    .selectFrom("usage_daily")
    .select(["day", "credits", "deliveries", "events", "rpc_calls"])
    .where("account_id", "=", accountId)
    .where("day", ">=", dates[0])
    .where("day", "<=", dates[dates.length - 1])
    .execute();
  const byDay = new Map(rows.map((r) => [r.day, r]));
  return dates.map((date) => {
    const r = byDay.get(date);
    return {
      date,
      credits: Number(r?.credits ?? 0),
      deliveries: Number(r?.deliveries ?? 0),
      events: Number(r?.events ?? 0),
      rpc_calls: Number(r?.rpc_calls ?? 0),
    };
  });
}
