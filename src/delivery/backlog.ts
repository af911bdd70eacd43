import type { Db } from "../db/database.ts";
import { STATUS_IS } from "./status-terms.ts";

/** The outbox's backlog at one moment: deliveries by state, and how long the most overdue pending one has been due. */
export type DeliveryBacklog = {
  pending: number;
  held: number;
  paused: number;
  failed: number;
  /** Seconds since the earliest next_attempt_at of a pending delivery (0 when none is overdue). */
  oldestDueSeconds: number;
};

/**
 * Counts the deliveries of each unfinished or failed state and finds the most overdue pending one.
 * Each state is spelt as a literal (status-terms.ts), so SQLite counts over an index that holds
 * it (the due index, or the partial failed one), reading index entries only.
 * Cost: one index range count per state (proportional to the rows in that state) and one index
 * seek; the /metrics gauges refresh it every few seconds rather than per scrape.
 */
export async function deliveryBacklog(db: Db, nowMs: number): Promise<DeliveryBacklog> {
  const count = async (state: "pending" | "held" | "paused" | "failed") => {
    const row = await db
      .selectFrom("deliveries")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where(STATUS_IS[state])
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };
  // One seek per half of the due index (status, replay, next_attempt_at): live rows and replayed rows.
  const earliest = async (replay: 0 | 1) => {
    const due = await db
      .selectFrom("deliveries")
      .select((eb) => eb.fn.min("next_attempt_at").as("at"))
      .where(STATUS_IS.pending)
      .where("replay", "=", replay)
      .executeTakeFirst();
    return due?.at === null || due?.at === undefined ? null : Number(due.at);
  };
  const dues = [await earliest(0), await earliest(1)].filter((at) => at !== null);
  const dueAt = dues.length === 0 ? null : Math.min(...dues);
  return {
    pending: await count("pending"),
    held: await count("held"),
    paused: await count("paused"),
    failed: await count("failed"),
    oldestDueSeconds: dueAt === null ? 0 : Math.max(0, (nowMs - dueAt) / 1000),
  };
}
