import { Worker } from "node:worker_threads";
import { sql } from "kysely";
import type { Db } from "../../executor.ts";
import type { Logger } from "../../../lib/log.ts";
import { CHECKPOINT_THREAD_SOURCE, type CheckpointStart } from "./checkpoint-thread.ts";

// SQLite's automatic WAL checkpoint runs inside the commit that pushes the WAL past
// `wal_autocheckpoint` pages (1,000 by default), on the connection that commits: in the daemon, the
// event loop's thread, where it took about a tenth of the delivery loop's time. Here a second
// connection on a thread of its own (checkpoint-thread.ts) checkpoints every `intervalMs`, and the
// daemon's connection only checkpoints as a backstop, once the WAL reaches `backstopPages`: a
// thread that stalled, lags or died never lets the WAL grow without bound. Should the thread end,
// the daemon's connection goes back to SQLite's default. Checkpoints change nothing of what is
// committed (a commit is in the WAL before it returns), so a daemon killed at any point loses
// nothing either way.

/** SQLite's own `wal_autocheckpoint`, restored when the thread is not running. */
export const DEFAULT_AUTOCHECKPOINT_PAGES = 1000;

export type CheckpointOptions = {
  /** How often the thread checkpoints. */
  intervalMs: number;
  /** The WAL size, in pages, at which the daemon's own connection checkpoints anyway. */
  backstopPages: number;
};

export const CHECKPOINT_DEFAULTS: CheckpointOptions = { intervalMs: 250, backstopPages: 10_000 };

export type CheckpointThread = {
  /** Resolves once the thread checkpointed for the first time and the daemon's connection stepped back (or the thread failed to start). */
  ready: Promise<void>;
  /** The thread itself (tests end it to show what happens when it dies). */
  readonly thread: Worker;
  /** Ends the thread and gives checkpoints back to the daemon's connection. */
  stop(): Promise<void>;
};

/** Starts the checkpoint thread for the SQLite file `path` that `db` has open. */
export function startCheckpointThread(db: Db, path: string, log: Logger, opts: CheckpointOptions = CHECKPOINT_DEFAULTS): CheckpointThread {
  const thread = new Worker(CHECKPOINT_THREAD_SOURCE, { eval: true, workerData: { path, intervalMs: opts.intervalMs } satisfies CheckpointStart });
  // The thread never keeps the process alive: the daemon's own work does, and stop() ends it.
  thread.unref();
  let stopping = false;
  let ended = false;
  const autocheckpoint = (pages: number) => sql`${sql.raw(`pragma wal_autocheckpoint = ${Math.floor(pages)}`)}`.execute(db).then(() => undefined);
  const giveBack = async () => {
    if (ended) return;
    ended = true;
    await autocheckpoint(DEFAULT_AUTOCHECKPOINT_PAGES).catch(() => {});
  };
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  // The first report says the thread checkpoints: the daemon's connection steps back to the backstop.
  thread.once("message", () => {
    if (stopping || ended) return;
    autocheckpoint(opts.backstopPages).then(markReady, (e) => {
      log.warn("WAL checkpoints stay on the daemon's thread", { error: String(e) });
      markReady();
    });
  });
  const threadEnded = (reason: string) => {
    // An error is followed by an exit: one warning.
    if (stopping || ended) return;
    log.warn("WAL checkpoint thread ended; checkpoints are back on the daemon's thread", { reason });
    giveBack().then(markReady);
  };
  thread.on("error", (e) => threadEnded(String(e)));
  let threadExited = false;
  thread.on("exit", (code) => {
    threadExited = true;
    threadEnded(`exit ${code}`);
  });
  return {
    ready,
    thread,
    async stop() {
      if (stopping) return;
      stopping = true;
      // The thread closes its connection and ends; terminated anyway if it does not within a second.
      const exited = threadExited ? Promise.resolve() : new Promise<void>((resolve) => thread.once("exit", () => resolve()));
      thread.postMessage("stop");
      const bound = setTimeout(() => void thread.terminate(), 1000);
      await exited;
      clearTimeout(bound);
      await giveBack();
      markReady();
    },
  };
}
