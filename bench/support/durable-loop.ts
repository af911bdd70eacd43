// A baseline for `bench:deliver` made of the fixed stack's parts only: the raw fetch loop plus the
// least bookkeeping that keeps "0 lost, at least once" over a database — one table (id, body,
// done, lease), and per round one write transaction that marks the results that finished since
// the last one done and claims the next due rows with one UPDATE … RETURNING under a lease. A
// process killed at any point loses nothing: a row is done only once its POST was answered 2xx
// and that was committed, and a leased row not done is claimed again when its lease runs out.
//
// It schedules as the daemon's loop does (src/delivery/pass.ts): `concurrency` POSTs in flight,
// up to twice that claimed, a claim once a quarter of the room is free (or nothing is claimed),
// the results of one turn of the event loop committed together with the next claim. What it
// leaves out is chainwatch's own work: signing, the attempt log, credits, usage, endpoint health,
// payments' order, rate limits, target checks.
//
// SQLite (bun:sqlite, the daemon's pragmas: WAL, synchronous NORMAL): BEGIN IMMEDIATE, the mark,
// the claim, COMMIT, all in-process. PostgreSQL (`pg`, one connection): the mark and the claim in
// one statement (a data-modifying WITH), so one round trip and one commit a round, the claim
// passing over rows another loop holds (FOR UPDATE SKIP LOCKED).
//
// `bun bench/support/durable-loop.ts <sqlite:///path | postgres://…> <hook url> <bodies.json|-> <concurrency>`:
// with a bodies file it (re)creates the table and queues them first, with `-` it uses the table as
// it is (the other loops on one PostgreSQL database). Prints `{"ready":true}`, starts on a line on
// stdin, prints `{"sent":…,"failed":…,"commits":…,"claims":…,"commitMs":…}` once nothing is left to claim, and
// exits on the next line or the end of stdin.
import { Database, type Statement } from "bun:sqlite";
import { readFileSync } from "node:fs";
import pg from "pg";

/** A claimed row: what to POST. */
export type Job = { id: number; body: string };

/** One write transaction: marks `done` done, then claims up to `limit` due rows (none when 0), leasing them until `leaseUntil`. */
export type Store = { commit(done: number[], limit: number, nowMs: number, leaseUntil: number): Job[] | Promise<Job[]>; close(): void | Promise<void> };

const LEASE_MS = 60_000;

/** Opens the loop's table on `url` (`sqlite://<path>` or a PostgreSQL URL); with `bodies`, (re)creates it holding them, not done. */
export function openStore(url: string, bodies: string[] | null): Store | Promise<Store> {
  return url.startsWith("sqlite://") ? sqliteStore(url.slice("sqlite://".length), bodies) : postgresStore(url, bodies);
}

/** A SQLite file opened with the daemon's pragmas (WAL, synchronous NORMAL, its page cache). */
export function openSqlite(path: string): Database {
  const db = new Database(path, { create: true, strict: true });
  for (const pragma of ["busy_timeout = 5000", "auto_vacuum = INCREMENTAL", "journal_mode = WAL", "synchronous = NORMAL", "cache_size = -65536"]) db.run(`PRAGMA ${pragma}`);
  return db;
}

/** The placeholders of an IN list of `n` values: `?,?,?`. */
export const inList = (n: number) => `${"?,".repeat(n - 1)}?`;

/** One prepared statement per batch size, as the daemon's statement cache keeps them: `sqlOf(n)` is the text for n rows. */
export function perCount(db: Database, sqlOf: (n: number) => string): (n: number) => Statement {
  const byCount = new Map<number, Statement>();
  return (n) => {
    let s = byCount.get(n);
    if (!s) byCount.set(n, (s = db.query(sqlOf(n))));
    return s;
  };
}

/** Runs `round` in one write transaction (BEGIN IMMEDIATE … COMMIT), rolled back whole if it throws. */
export function inWriteRound(db: Database): <T>(round: () => T) => T {
  const begin = db.query("BEGIN IMMEDIATE");
  const commit = db.query("COMMIT");
  return (round) => {
    begin.run();
    try {
      const out = round();
      commit.run();
      return out;
    } catch (e) {
      if (db.inTransaction) db.run("ROLLBACK");
      throw e;
    }
  };
}

function sqliteStore(path: string, bodies: string[] | null): Store {
  const db = openSqlite(path);
  if (bodies) {
    db.run("DROP TABLE IF EXISTS jobs");
    db.run("CREATE TABLE jobs (id INTEGER PRIMARY KEY, body TEXT NOT NULL, done INTEGER NOT NULL DEFAULT 0, lease_until INTEGER NOT NULL DEFAULT 0)");
    db.run("CREATE INDEX jobs_due ON jobs (id) WHERE done = 0");
    const insert = db.query("INSERT INTO jobs (body) VALUES (?)");
    db.transaction(() => {
      for (const b of bodies) insert.run(b);
    })();
  }
  const round = inWriteRound(db);
  const claim = db.query<Job, [number, number, number]>(
    "UPDATE jobs SET lease_until = ? WHERE id IN (SELECT id FROM jobs WHERE done = 0 AND lease_until < ? ORDER BY id LIMIT ?) RETURNING id, body",
  );
  const markOf = perCount(db, (n) => `UPDATE jobs SET done = 1 WHERE id IN (${inList(n)})`);
  return {
    commit: (done, limit, nowMs, leaseUntil) =>
      round(() => {
        if (done.length > 0) markOf(done.length).run(...done);
        return limit > 0 ? claim.all(leaseUntil, nowMs, limit) : [];
      }),
    close: () => db.close(),
  };
}

async function postgresStore(url: string, bodies: string[] | null): Promise<Store> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  if (bodies) {
    await client.query("DROP TABLE IF EXISTS jobs");
    await client.query("CREATE TABLE jobs (id bigserial PRIMARY KEY, body text NOT NULL, done boolean NOT NULL DEFAULT false, lease_until bigint NOT NULL DEFAULT 0)");
    await client.query("CREATE INDEX jobs_due ON jobs (id) WHERE NOT done");
    await client.query("INSERT INTO jobs (body) SELECT unnest($1::text[])", [bodies]);
    await client.query("ANALYZE jobs");
  }
  const text = `WITH marked AS (UPDATE jobs SET done = true WHERE id = ANY($1::bigint[]))
UPDATE jobs SET lease_until = $2 WHERE id IN (
  SELECT id FROM jobs WHERE NOT done AND lease_until < $3 ORDER BY id LIMIT $4 FOR UPDATE SKIP LOCKED)
RETURNING id, body`;
  return {
    async commit(done, limit, nowMs, leaseUntil) {
      const { rows } = await client.query<{ id: string; body: string }>({ name: "durable_commit", text, values: [done, leaseUntil, nowMs, limit] });
      return rows.map((r) => ({ id: Number(r.id), body: r.body }));
    },
    close: () => client.end(),
  };
}

/** What one POST left for the next commit: `D` (the durable loop: the id of a row answered 2xx), or nothing. */
export type Send<D> = (job: Job) => Promise<D | null>;

/** One write transaction of a loop: records `done`, then claims up to `limit` due rows (none when 0) until `leaseUntil`. */
export type Commit<D> = (done: D[], limit: number, nowMs: number, leaseUntil: number) => Job[] | Promise<Job[]>;

/** The raw POST the durable loop sends to `hookUrl`: the body and its content type, nothing signed; a 2xx gives the row's id. */
export const postBody =
  (hookUrl: string, post: typeof fetch = fetch): Send<number> =>
  (job) =>
    post(hookUrl, { method: "POST", headers: { "Content-Type": "application/json" }, body: job.body })
      .then(async (res) => {
        await res.text();
        return res.ok ? job.id : null;
      })
      .catch(() => null);

/**
 * Runs a loop until a claim finds nothing and nothing is in flight or unrecorded: `send` POSTs a
 * claimed row and says what its commit records (nothing: the row stays leased, not done, and goes
 * out again when its lease runs out), `commit` records and claims in one transaction.
 */
export async function runLoop<D>(commitRound: Commit<D>, send: Send<D>, concurrency: number) {
  const claimBatch = Math.max(1, Math.ceil(concurrency / 4));
  const ready: Job[] = [];
  let finished: D[] = [];
  let inFlight = 0;
  let sent = 0;
  let failed = 0;
  let commits = 0;
  let claims = 0;
  // Wall time inside the commits: on SQLite the thread is busy all of it (the driver is synchronous).
  let commitMs = 0;
  let mayBeDue = true;
  let wake: (() => void) | null = null;
  let commitQueued = false;
  const notify = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  const commitSoon = () => {
    if (commitQueued) return;
    commitQueued = true;
    setImmediate(() => {
      commitQueued = false;
      notify();
    });
  };
  const fill = () => {
    while (inFlight < concurrency && ready.length > 0) {
      const job = ready.shift() as Job;
      inFlight++;
      send(job).then((done) => {
        inFlight--;
        sent++;
        if (done !== null) finished.push(done);
        else failed++;
        fill();
        commitSoon();
      });
    }
  };
  for (;;) {
    const claimedNow = inFlight + ready.length;
    const room = 2 * concurrency - claimedNow;
    const claim = room > 0 && mayBeDue && (room >= claimBatch || claimedNow === 0);
    if (finished.length === 0 && !claim) {
      if (claimedNow === 0) break;
      await new Promise<void>((r) => (wake = r));
      continue;
    }
    const done = finished;
    finished = [];
    const now = Date.now();
    const t0 = performance.now();
    const claimed = await commitRound(done, claim ? room : 0, now, now + LEASE_MS);
    commitMs += performance.now() - t0;
    commits++;
    if (claim) {
      claims++;
      mayBeDue = claimed.length === room;
    } else if (done.length > 0) mayBeDue = true;
    for (const j of claimed) ready.push(j);
    fill();
  }
  return { sent, failed, commits, claims, commitMs: Math.round(commitMs) };
}

/** Waits for "go" on stdin, runs the loop, prints its counts, and stays until told (the bench reads its CPU from /proc first). */
export async function serveLoop<D>(commitRound: Commit<D>, send: Send<D>, concurrency: number, close: () => void | Promise<void>): Promise<never> {
  process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
  for await (const _ of console) break;
  const outcome = await runLoop(commitRound, send, concurrency);
  await close();
  process.stdout.write(`${JSON.stringify(outcome)}\n`);
  for await (const _ of console) break;
  process.exit(0);
}

if (import.meta.main) {
  const [url, hookUrl, bodiesFile, concurrencyArg] = process.argv.slice(2);
  const bodies = bodiesFile && bodiesFile !== "-" ? (JSON.parse(readFileSync(bodiesFile, "utf8")) as string[]) : null;
  const store = await openStore(url, bodies);
  await serveLoop((done: number[], limit, nowMs, leaseUntil) => store.commit(done, limit, nowMs, leaseUntil), postBody(hookUrl), Number(concurrencyArg ?? 32), () => store.close());
}
