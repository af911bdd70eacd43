import type { Db } from "../db/database.ts";

const DAY_MS = 86_400_000;

/** Deletes the account notices created more than `days` ago (`delivery.retention_days`, as the deliveries they are about); returns how many. */
export async function pruneNotices(db: Db, nowMs: number, days: number): Promise<number> {
  const deleted = await db.deleteFrom("notices").where("created_at", "<", nowMs - days * DAY_MS).executeTakeFirst();
  return Number(deleted.numDeletedRows);
}
