// The body of the WAL checkpoint thread (started by checkpoints.ts): its own connection to the
// daemon's SQLite file, running `PRAGMA wal_checkpoint(PASSIVE)` every `intervalMs`. PASSIVE copies
// what it can from the WAL into the database without waiting on the writer or any reader; once
// everything is copied, the next write transaction starts the WAL over from its beginning. Each
// result goes back to the daemon's thread as a message; the message "stop" closes the connection
// and ends the thread.
//
// It is source text, run with `eval`: the same thread then starts from the source tree, from the
// bundle the tests spawn and from the single binary, with no file of its own to find or build in.
// It needs nothing but bun:sqlite.

/** What the thread is started with (its workerData). */
export type CheckpointStart = { path: string; intervalMs: number };

/** What the thread answers after each checkpoint: the WAL's frames, and how many are now in the database. */
export type CheckpointReport = { log: number; checkpointed: number; busy: number };

export const CHECKPOINT_THREAD_SOURCE = `
const { Database } = require("bun:sqlite");
const { parentPort, workerData } = require("node:worker_threads");
const db = new Database(workerData.path);
// PASSIVE never waits on the busy handler; this only bounds opening the WAL index.
db.run("PRAGMA busy_timeout = 1000");
const checkpoint = db.query("PRAGMA wal_checkpoint(PASSIVE)");
const run = () => {
  try {
    const r = checkpoint.get();
    if (r) parentPort.postMessage({ log: r.log, checkpointed: r.checkpointed, busy: r.busy });
  } catch {
    // A busy WAL index or a full disk: the next round tries again; the daemon's backstop bounds the WAL meanwhile.
  }
};
run();
const timer = setInterval(run, workerData.intervalMs);
// "stop": close the connection before the thread ends (a daemon started and stopped in one process
// must not leave it open).
parentPort.on("message", (m) => {
  if (m !== "stop") return;
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;
