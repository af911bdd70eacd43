import type { Db } from "../db/database.ts";
import type { Transaction } from "kysely";
import type { DB } from "../db/schema.ts";
import { lastUtcDays, utcDay } from "../lib/time.ts";

type Executor = Db | Transaction<DB>;

/** Adds to today's usage row of an account (created on first use). */
export async function recordUsage(
  db: Executor,
  accountId: string,
  nowMs: number,
  add: { credits?: number; deliveries?: number; events?: number },
): Promise<void> {
  const credits = add.credits ?? 0;
  const deliveries = add.deliveries ?? 0;
  const events = add.events ?? 0;
  await db
    .insertInto("usage_daily")
    .values({ account_id: accountId, day: utcDay(nowMs), credits, deliveries, events })
    .onConflict((oc) =>
      oc.columns(["account_id", "day"]).doUpdateSet((eb) => ({
        credits: eb("usage_daily.credits", "+", credits),
        deliveries: eb("usage_daily.deliveries", "+", deliveries),
        events: eb("usage_daily.events", "+", events),
      })),
    )
    .execute();
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
