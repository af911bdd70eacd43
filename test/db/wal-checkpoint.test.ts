import { afterEach, beforeEach, expect, it } from "bun:test";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { type Db, openDatabase } from "../../src/db/database.ts";
import type { CheckpointReport } from "../../src/db/dialect/sqlite/checkpoint-thread.ts";
import { type CheckpointThread, DEFAULT_AUTOCHECKPOINT_PAGES, startCheckpointThread } from "../../src/db/dialect/sqlite/checkpoints.ts";
import { silentLogger } from "../../src/lib/log.ts";
import { until } from "../support/poll.ts";

// The daemon's WAL checkpoints run on a thread of their own (src/db/dialect/sqlite/checkpoints.ts),
// and the WAL stays bounded whatever that thread does: it keeps up, it lags, or it dies. Always a
// SQLite file of its own, whatever database the suite runs on: PostgreSQL has no WAL file to bound.

const PAGE = 4096;
/** One WAL frame: a page and its 24-byte header. */
const FRAME = PAGE + 24;
/** Write transactions per round and rounds: 3,000 of about five frames each (a round adds ~500), ~15,000 unchecked. */
const PER_ROUND = 100;
const ROUNDS = 30;

let dir: string;
let path: string;
let db: Db;
let thread: CheckpointThread | null;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "chainwatch-wal-"));
  path = join(dir, "cw.db");
  db = openDatabase(`sqlite://${path}`);
  await sql`create table blobs (id integer primary key, x blob)`.execute(db);
  thread = null;
});

afterEach(async () => {
  await thread?.stop();
  await db.destroy();
  rmSync(dir, { recursive: true, force: true });
});

const autocheckpoint = async () => Number((await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(db)).rows[0].wal_autocheckpoint);
const walBytes = () => statSync(`${path}-wal`).size;

/** One round of small write transactions (each a blob's leaf and overflow pages and the pages above them). */
async function writeRound(): Promise<void> {
  for (let i = 0; i < PER_ROUND; i++) await db.transaction().execute((trx) => sql`insert into blobs (x) values (randomblob(7000))`.execute(trx));
}

/**
 * Waits until the WAL is copied whole: two reports in a row, both received after this call began,
 * that found the same frames and copied them all. Reports the thread sent while a round wrote
 * wait in the queue until the round ends (the round's statements never yield to it), and one of
 * them may say "all copied" of a WAL the round then added to: the next round would append.
 */
async function copiedWhole(t: CheckpointThread): Promise<void> {
  const reports: CheckpointReport[] = [];
  const take = (r: CheckpointReport) => reports.push(r);
  t.thread.on("message", take);
  try {
    await until(
      async () => reports.slice(-2),
      ([a, b]) => a !== undefined && b !== undefined && a.log > 0 && a.log === b.log && a.checkpointed === a.log && b.checkpointed === b.log,
    );
  } finally {
    t.thread.off("message", take);
  }
}

it("the thread checkpoints, the daemon's connection only as a backstop, and the WAL starts over instead of growing", async () => {
  thread = startCheckpointThread(db, path, silentLogger, { intervalMs: 10, backstopPages: 1_000_000 });
  await thread.ready;
  // The daemon's connection no longer checkpoints at SQLite's 1,000 pages.
  expect(await autocheckpoint()).toBe(1_000_000);
  let largest = 0;
  for (let round = 0; round < ROUNDS; round++) {
    await writeRound();
    largest = Math.max(largest, walBytes());
    // Between rounds nothing writes: the thread's next checkpoint copies the whole WAL.
    await copiedWhole(thread);
  }
  // About 15,000 frames were written; without checkpoints (the backstop is far away) the WAL would
  // hold them all. Started over after each round it holds one round (~500). A writer that meets
  // the thread inside a checkpoint appends instead of starting over: the bound allows a few rounds.
  expect(largest).toBeLessThan(2_000 * FRAME);
  const total = (await sql<{ n: number }>`select count(*) as n from blobs`.execute(db)).rows[0].n;
  expect(Number(total)).toBe(PER_ROUND * ROUNDS);
});

it("a thread that lags leaves the WAL to the daemon's backstop", async () => {
  // One checkpoint at start, then none for a minute: the thread is there but does nothing.
  thread = startCheckpointThread(db, path, silentLogger, { intervalMs: 60_000, backstopPages: 200 });
  await thread.ready;
  expect(await autocheckpoint()).toBe(200);
  let largest = 0;
  for (let round = 0; round < ROUNDS; round++) {
    await writeRound();
    largest = Math.max(largest, walBytes());
  }
  expect(largest).toBeLessThan((200 + 100) * FRAME);
});

it("a thread that dies gives checkpoints back to the daemon's connection, and the WAL stays bounded", async () => {
  thread = startCheckpointThread(db, path, silentLogger, { intervalMs: 10, backstopPages: 1_000_000 });
  await thread.ready;
  expect(await autocheckpoint()).toBe(1_000_000);
  thread.thread.terminate();
  await until(autocheckpoint, (pages) => pages === DEFAULT_AUTOCHECKPOINT_PAGES);
  let largest = 0;
  for (let round = 0; round < ROUNDS; round++) {
    await writeRound();
    largest = Math.max(largest, walBytes());
  }
  expect(largest).toBeLessThan((DEFAULT_AUTOCHECKPOINT_PAGES + 100) * FRAME);
});
