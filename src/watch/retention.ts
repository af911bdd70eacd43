import type { Db } from "../db/database.ts";
import { undeliveredEventIds } from "../delivery/outbox.ts";
import { pruneSubscriptions } from "./block-subscriptions.ts";

const DAY_MS = 86_400_000;

// Rows per DELETE: each statement is its own short write, so the API and ingest never wait long.
const CHUNK = 5000;

export type PruneResult = { events: number; subscriptions: number };

/**
 * Deletes events older than `days`, except those whose delivery is still pending, paused or held, then
 * the closed block subscriptions no remaining block event falls in. Deliveries are not touched here
 * (each carries its own body; delivery/retention.ts prunes them by `delivery.retention_days`).
 */
export async function pruneEvents(db: Db, nowMs: number, days: number, stopping: () => boolean = () => false): Promise<PruneResult> {
  const cutoff = nowMs - days * DAY_MS;
  let events = 0;
  for (;;) {
    const result = await db
      .deleteFrom("events")
      .where("seq", "in", (eb) =>
        eb
          .selectFrom("events")
          .select("seq")
          .where("created_at", "<", cutoff)
          .where("id", "not in", undeliveredEventIds(db))
          .limit(CHUNK),
      )
      .executeTakeFirst();
    const n = Number(result.numDeletedRows);
    events += n;
    if (n < CHUNK || stopping()) break;
  }
  return { events, subscriptions: await pruneSubscriptions(db) };
}
