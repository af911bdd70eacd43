import type { Logger } from "../lib/log.ts";
import type { Worker } from "../lib/worker.ts";
import { dialectOfUrl, sqlitePath } from "./database.ts";
import { type CheckpointThread, startCheckpointThread } from "./dialect/sqlite/checkpoints.ts";
import type { Db } from "./executor.ts";

// The daemon's WAL checkpoints, as one of its workers: on a SQLite file they run on a thread of
// their own (dialect/sqlite/checkpoints.ts); PostgreSQL checkpoints by itself, and an in-memory
// database has no WAL, so there the worker does nothing.

/** The checkpoint worker of `serve`; started and stopped with the daemon's other workers. */
/** `url`: the database URL the daemon opened `db` from. */
export function walCheckpointWorker(deps: { url: string; db: Db; log: Logger }): Worker {
  const url = deps.url;
  const path = dialectOfUrl(url) === "sqlite" ? sqlitePath(url) : ":memory:";
  let running: CheckpointThread | null = null;
  return {
    name: "wal-checkpoint",
    start() {
      if (path === ":memory:" || running) return;
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
