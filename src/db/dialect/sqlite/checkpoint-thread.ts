// The body of the WAL checkpoint thread (started by checkpoints.ts): its own connection to the
// daemon's SQLite file, running `PRAGMA wal_checkpoint(PASSIVE)` every `intervalMs`. PASSIVE copies
// what it can from the WAL into the database without waiting on the writer or any reader; once
// everything is copied, the next write transaction starts the WAL over from its beginning. Each
// result goes back to the daemon's thread as a message; the message "stop" closes the connection
// and ends the thread. While nothing is written the wait doubles, up to IDLE_FACTOR times
// `intervalMs` (one second at the default): an idle daemon's thread and the message it sends each
// time cost CPU four times a second for nothing, and the first checkpoint after writes resume
// comes at most that much later (the WAL meanwhile grows by what a second writes, far below the
// daemon's own backstop).
//
// It is source text, run with `eval`: the same thread then starts from the source tree, from the
// bundle the tests spawn and from the single binary, with no file of its own to find or build in.
// It needs nothing but bun:sqlite.

/** What the thread is started with (its workerData). */
export type CheckpointStart = { path: string; intervalMs: number };

/** What the thread answers after each checkpoint: the WAL's frames, and how many are now in the database. */
export type CheckpointReport = { log: number; checkpointed: number; busy: number };

/** How many times `intervalMs` the thread waits at most while nothing is written. */
const IDLE_FACTOR = 4;

export const CHECKPOINT_THREAD_SOURCE = `
const { Database } = require("bun:sqlite");
const { parentPort, workerData } = require("node:worker_threads");
const db = new Database(workerData.path);
// PASSIVE never waits on the busy handler; this only bounds opening the WAL index.
db.run("PRAGMA busy_timeout = 1000");
const checkpoint = db.query("PRAGMA wal_checkpoint(PASSIVE)");
// What the last checkpoint found. The same again almost always means nothing was written in
// between; when it does not (the WAL started over and grew to the same size), this checkpoint
// copied what was written, and the longer wait only lets the WAL grow for a while longer.
let previous = "";
let wait = workerData.intervalMs;
let timer = null;
const run = () => {
  try {
    const r = checkpoint.get();
    if (r) {
      parentPort.postMessage({ log: r.log, checkpointed: r.checkpointed, busy: r.busy });
      const found = r.log + "/" + r.checkpointed + "/" + r.busy;
      wait = found === previous ? Math.min(wait * 2, workerData.intervalMs * ${IDLE_FACTOR}) : workerData.intervalMs;
      previous = found;
    }
  } catch {
    // A busy WAL index or a full disk: the next round tries again; the daemon's backstop bounds the WAL meanwhile.
    wait = workerData.intervalMs;
  }
  timer = setTimeout(run, wait);
};
run();
// "stop": close the connection before the thread ends (a daemon started and stopped in one process
// must not leave it open).
parentPort.on("message", (m) => {
  if (m !== "stop") return;
  clearTimeout(timer);
  db.close();
  parentPort.close();
});
`;
