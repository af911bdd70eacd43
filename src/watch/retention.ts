import type { Db } from "../db/database.ts";
import { undeliveredEventIds } from "../delivery/outbox.ts";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/log.ts";
import { createWorker, type Worker } from "../lib/worker.ts";
import { pruneSubscriptions } from "./block-subscriptions.ts";

const DAY_MS = 86_400_000;

// Rows per DELETE: each statement is its own short write, so the API and ingest never wait long.
const CHUNK = 5000;

export type PruneResult = { events: number; subscriptions: number };

/**
 * Deletes events older than `days`, except those whose delivery is still pending, paused or held, then
 * the closed block subscriptions no remaining block event falls in. Deliveries are never touched:
 * each carries its own body, and the delivery history outlives the polling backup.
 */
export async function pruneEvents(db: Db, nowMs: number, days: number): Promise<PruneResult> {
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
    if (n < CHUNK) break;
  }
  return { events, subscriptions: await pruneSubscriptions(db) };
}

/** The hourly retention cron (docs/operations.md) as a daemon worker. */
export function retentionWorker(deps: { db: Db; clock: Clock; log: Logger; retentionDays: number; pattern?: string }): Worker {
  return createWorker({
    name: "retention",
    log: deps.log,
    schedule: deps.pattern ?? "@hourly",
    failure: "event retention failed",
    async run() {
      const pruned = await pruneEvents(deps.db, deps.clock.now(), deps.retentionDays);
      if (pruned.events > 0 || pruned.subscriptions > 0) deps.log.info("events pruned", { ...pruned, retention_days: deps.retentionDays });
    },
  });
}
