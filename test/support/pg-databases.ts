// Test databases on the PostgreSQL test server, made synchronously (configs are built
// synchronously) without a process per database: a worker thread of this process
// (pg-database-worker.ts) keeps one connection to the server and makes them, and the caller
// blocks on a SharedArrayBuffer until its answer is written. It replaced a psql per database
// (Debian's psql is a Perl wrapper that starts the real one): on the 2-core test machine, where
// starting any process takes ~8 ms of CPU and a PostgreSQL backend for a new connection ~40 ms,
// each database cost ~0.1 s of client CPU and ~0.2 s of waiting before the copy even began.
import { join } from "node:path";
import type { DatabaseRequest } from "./pg-database-worker.ts";

/** The longest a caller waits: the first request also migrates the template. */
const WAIT_MS = 120_000;
/** Room for the answer: a database name or an error message. */
const ANSWER_BYTES = 4096;

let worker: Worker | undefined;

/**
 * Makes a database on `server` and answers its name: a copy of the migrated template
 * (pg-template.ts), or an empty database when `empty` (tests of migrating itself).
 */
export function createTestDatabase(server: string, opts: { empty?: boolean } = {}): string {
  if (!worker) {
    worker = new Worker(join(import.meta.dir, "pg-database-worker.ts"));
    // The thread never keeps a finished test process alive.
    worker.unref();
  }
  // Layout: [state, length] as int32 (state 0 waiting, 1 a name, 2 an error), then the UTF-8 text.
  const sab = new SharedArrayBuffer(8 + ANSWER_BYTES);
  const header = new Int32Array(sab, 0, 2);
  const request: DatabaseRequest = { sab, server, empty: opts.empty ?? false };
  worker.postMessage(request);
  if (Atomics.wait(header, 0, 0, WAIT_MS) === "timed-out") throw new Error(`no test database from ${server} within ${WAIT_MS} ms`);
  const text = new TextDecoder().decode(new Uint8Array(sab, 8, header[1]).slice());
  if (Atomics.load(header, 0) !== 1) throw new Error(`cannot create a test database: ${text}`);
  return text;
}
