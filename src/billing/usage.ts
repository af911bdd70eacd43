import type { Db, Executor } from "../db/database.ts";
import { fixedStatement } from "../db/fixed-sql.ts";
import { lastUtcDays, utcDay } from "../lib/time.ts";


// Fixed SQL rather than a query built per call: the delivery loop adds usage in every commit.
const ADD_USAGE = `insert into usage_daily (account_id, day, credits, deliveries, events) values (?, ?, ?, ?, ?)
on conflict (account_id, day) do update set credits = usage_daily.credits + excluded.credits,
  deliveries = usage_daily.deliveries + excluded.deliveries, events = usage_daily.events + excluded.events`;

/** Adds to today's usage row of an account (created on first use). */
export async function recordUsage(
  db: Executor,
  accountId: string,
  nowMs: number,
  add: { credits?: number; deliveries?: number; events?: number },
): Promise<void> {
  const params = [accountId, utcDay(nowMs), add.credits ?? 0, add.deliveries ?? 0, add.events ?? 0];
  await db.executeQuery(fixedStatement(ADD_USAGE, params));
}

export type UsagePoint = { date: string; credits: number; deliveries: number; events: number };

/** Exactly `days` UTC days, oldest first, today last, days without usage zero-filled. */
export async function usageSeries(db: Db, accountId: string, nowMs: number, days: number): Promise<UsagePoint[]> {
  const dates = lastUtcDays(nowMs, days);
  const rows = await db
    .selectFrom("usage_daily")
    .select(["day", "credits", "deliveries", "events"])
    .where("account_id", "=", accountId)
    .where("day", ">=", dates[0])
    .where("day", "<=", dates[dates.length - 1])
    .execute();
  const byDay = new Map(rows.map((r) => [r.day, r]));
  return dates.map((date) => {
    const r = byDay.get(date);
    return { date, credits: Number(r?.credits ?? 0), deliveries: Number(r?.deliveries ?? 0), events: Number(r?.events ?? 0) };
  });
}
