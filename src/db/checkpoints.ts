import type { Logger } from "../lib/log.ts";
import type { Worker } from "../lib/worker.ts";
import { dialectOfUrl, sqlitePath } from "./database.ts";
import { type CheckpointThread, startCheckpointThread } from "./dialect/sqlite/checkpoints.ts";
import type { Db } from "./executor.ts";

// The daemon's WAL checkpoints, as one of its workers: on a SQLite file they run on a thread of
// their own (dialect/sqlite/checkpoints.ts); PostgreSQL checkpoints by itself, and an in-memory
// database has no WAL, so there the worker does nothing.

/** The checkpoint worker of `serve` (`url`: the one `db` was opened from); started and stopped with the daemon's other workers. */
export function walCheckpointWorker(deps: { url: string; db: Db; log: Logger }): Worker {
  // A file with a WAL: a SQLite database not in memory.
  const path = dialectOfUrl(deps.url) === "sqlite" ? sqlitePath(deps.url) : null;
  const hasWal = path !== null && path !== ":memory:";
  let running: CheckpointThread | null = null;
  return {
    name: "wal-checkpoint",
    start() {
      if (!hasWal || running) return;
      running = startCheckpointThread(deps.db, path, deps.log);
    },
    wake() {},
    idle: () => Promise.resolve(),
    async stop() {
      await running?.stop();
      running = null;
    },
  };
}
