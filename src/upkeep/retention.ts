import { pruneUsage } from "../billing/retention.ts";
import { pruneExpiredSignIns } from "../cabinet/sessions.ts";
import type { Config } from "../config/schema.ts";
import type { Db } from "../db/database.ts";
import { reclaimSpace } from "../db/storage.ts";
import { pruneDeliveries } from "../delivery/retention.ts";
import { pruneFollowerBookkeeping } from "../follow/core/retention.ts";
import { pruneBlocks } from "../ingest/retention.ts";
import { pruneNotices } from "../notices/retention.ts";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/log.ts";
import { createWorker, type Worker } from "../lib/worker.ts";
import { pruneEvents } from "../watch/retention.ts";

// Every table that grows with use has a bound (docs/operations.md, "What is kept"). Each folder
// prunes only the tables it owns; this worker runs their steps one after another, off the request
// path, each deleting in chunks of short transactions, then gives the space back (SQLite).

export type RetentionDeps = { db: Db; clock: Clock; log: Logger; config: Config };

/** What one retention run deleted, by table (only the counts above zero are logged). */
export type RetentionReport = Record<string, number>;

/** One retention run over every table with a bound; `stopping` ends it early between chunks (shutdown). */
export async function runRetention(deps: RetentionDeps, stopping: () => boolean = () => false): Promise<RetentionReport> {
  const { db, config } = deps;
  const now = deps.clock.now();
  const events = await pruneEvents(db, now, config.events.retention_days, stopping);
  const deliveries = await pruneDeliveries(db, now, config.delivery.retention_days, stopping);
  const notices = await pruneNotices(db, now, config.delivery.retention_days);
  // After events: a block is kept while an event names it.
  const blocks = await pruneBlocks(
    db,
    Object.entries(config.networks).map(([network, n]) => ({ network, maxReorgDepth: n.max_reorg_depth, confirmations: n.confirmations })),
    stopping,
  );
  const usage = await pruneUsage(db, now);
  const signIns = await pruneExpiredSignIns(db, now);
  const follower = await pruneFollowerBookkeeping(db, now, Object.keys(config.networks));
  const report: RetentionReport = {
    events: events.events,
    block_subscriptions: events.subscriptions,
    deliveries: deliveries.deliveries,
    delivery_attempts: deliveries.attempts,
    notices,
    blocks,
    usage_days: usage,
    cabinet_sessions: signIns.sessions,
    cabinet_links: signIns.links,
    follower_states: follower.followerStates,
    token_decimals: follower.tokenDecimals,
  };
  const deleted = Object.values(report).reduce((a, b) => a + b, 0);
  report.reclaimed_bytes = deleted > 0 ? await reclaimSpace(db, stopping) : 0;
  return report;
}

/** The hourly retention run as a daemon worker (the first run comes an hour after start, `pattern` in tests and benchmarks). */
export function retentionWorker(deps: RetentionDeps & { pattern?: string }): Worker {
  return createWorker({
    name: "retention",
    log: deps.log,
    schedule: deps.pattern ?? "@hourly",
    failure: "retention failed",
    async run(stopping) {
      const started = deps.clock.now();
      const report = await runRetention(deps, stopping);
      const pruned = Object.fromEntries(Object.entries(report).filter(([, n]) => n > 0));
      if (Object.keys(pruned).length > 0) deps.log.info("pruned", { ...pruned, ms: deps.clock.now() - started });
    },
  });
}
