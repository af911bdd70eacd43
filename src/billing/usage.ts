import type { Db, Executor } from "../db/database.ts";
import { fixedStatement } from "../db/fixed-sql.ts";
import { lastUtcDays, utcDay } from "../lib/time.ts";


// Fixed SQL rather than a query built per call: the delivery loop adds usage in every commit.
const ADD_USAGE_ROW = "(?, ?, ?, ?, ?)";
const ADD_USAGE_CONFLICT = `on conflict (account_id, day) do update set credits = usage_daily.credits + excluded.credits,
  deliveries = usage_daily.deliveries + excluded.deliveries, events = usage_daily.events + excluded.events`;

// Rows per statement: 500 × 5 parameters stays far below SQLite's bound-parameter cap.
const CHUNK = 500;

export type UsageAdd = { credits?: number; deliveries?: number; events?: number };

/** Adds to today's usage row of an account (created on first use). */
export function recordUsage(db: Executor, accountId: string, nowMs: number, add: UsageAdd): Promise<void> {
  return addUsage(db, nowMs, new Map([[accountId, add]]));
}

/** Adds to today's usage rows of many accounts, one multi-row upsert per 500 accounts. */
export async function addUsage(db: Executor, nowMs: number, adds: ReadonlyMap<string, UsageAdd>): Promise<void> {
  const day = utcDay(nowMs);
  const rows = [...adds];
  for (let i = 0; i < rows.length; i += CHUNK) {
    const chunk = rows.slice(i, i + CHUNK);
    const params: unknown[] = [];
    for (const [accountId, add] of chunk) params.push(accountId, day, add.credits ?? 0, add.deliveries ?? 0, add.events ?? 0);
    const values = new Array<string>(chunk.length).fill(ADD_USAGE_ROW).join(", ");
    await db.executeQuery(
      fixedStatement(`insert into usage_daily (account_id, day, credits, deliveries, events) values ${values} ${ADD_USAGE_CONFLICT}`, params),
    );
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
