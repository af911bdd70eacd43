import type { Db } from "../db/database.ts";
import { databaseSize } from "../db/storage.ts";
import { deliveryBacklog } from "../delivery/backlog.ts";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/log.ts";
import type { Metrics } from "../lib/metrics.ts";
import { createWorker, type Worker } from "../lib/worker.ts";

/** How often the backlog and storage gauges are refreshed: a scrape reads the last values, never the tables. */
export const GAUGE_INTERVAL_SECONDS = 5;

/** Reads the outbox backlog and the database size once and sets their /metrics gauges. */
export async function refreshGauges(deps: { db: Db; clock: Clock; metrics: Metrics }): Promise<void> {
  const backlog = await deliveryBacklog(deps.db, deps.clock.now());
  for (const state of ["pending", "held", "paused", "failed"] as const) deps.metrics.setGauge("chainwatch_deliveries", backlog[state], { state });
  deps.metrics.setGauge("chainwatch_delivery_oldest_due_seconds", backlog.oldestDueSeconds);
  const size = await databaseSize(deps.db);
  deps.metrics.setGauge("chainwatch_database_bytes", size.bytes);
  if (size.freeBytes !== null) deps.metrics.setGauge("chainwatch_database_free_bytes", size.freeBytes);
  if (size.walBytes !== null) deps.metrics.setGauge("chainwatch_database_wal_bytes", size.walBytes);
}

/** The gauges as a daemon worker: a run at start, then every GAUGE_INTERVAL_SECONDS. */
export function gaugesWorker(deps: { db: Db; clock: Clock; log: Logger; metrics: Metrics }): Worker {
  return createWorker({
    name: "gauges",
    log: deps.log,
    schedule: `*/${GAUGE_INTERVAL_SECONDS} * * * * *`,
    runOnStart: true,
    failure: "gauges refresh failed",
    run: () => refreshGauges(deps),
  });
}
