// A second baseline for `bench:deliver` on SQLite: the durable loop (durable-loop.ts, the same
// scheduling and the same one-transaction rounds) plus the least that chainwatch's delivery contract
// asks of every webhook that succeeds, written plainly over bun:sqlite with nothing else:
//
// - each POST is bounded by the delivery timeout, follows no redirect, and carries the contract's
//   headers: Content-Type, User-Agent, X-Timestamp, X-Signature (hex HMAC-SHA256 of
//   `<ts>.<body>`), X-Webhook-Id and the Standard Webhooks trio, whose signature is a second HMAC
//   (base64, over `<id>.<ts>.<body>`), both keyed with the secret's bytes;
// - every attempt is recorded: its status, duration, error and the response's first 1 KiB, in a
//   table indexed by delivery (a delivery's attempts are listed);
// - a success is charged to the account's credit pool and counted in its usage series, and a claim
//   takes no more rows than the pool can pay for.
//
// It leaves out what only a failure needs (backoff, the attempts' cap, notices), what only a
// payment order's webhooks need (their order), and what is chainwatch's choice rather than the
// contract's: it posts to one URL with one key (no endpoint read per batch, no endpoint health),
// with no rate limits, no target check at send time, no replays. Where the durable loop against the
// raw loop is what a durable outbox costs, this against the durable loop is what the contract
// costs the least implementation on the same stack.
//
// `bun bench/support/contract-loop.ts sqlite:///path <hook url> <bodies.json> <concurrency> [<daemon's
// SQLite file>]`: with the last, over copies of chainwatch's outbox tables (openOutboxContractStore);
// stdin and stdout as durable-loop.ts's.
import { Database } from "bun:sqlite";
import { readFileSync } from "node:fs";
import { newTimeOrderedId } from "../../src/lib/ids.ts";
import { type Commit, inList, inWriteRound, type Job, openSqlite, perCount, type Send, serveLoop } from "./durable-loop.ts";

/** One attempt, as the commit records it. */
export type Attempt = { id: number; ok: boolean; status: number; durationMs: number; error: string | null; response: string; at: number };

const USER_AGENT = "chainwatch/0.1.0";
/** A webhook secret's key bytes (24, as `whsec_` secrets have). */
const KEY = new Uint8Array(24).fill(7);
const CREDITS = 1_000_000_000;
/** delivery.timeout_ms's default. */
const TIMEOUT_MS = 5_000;

/** The account's credit pool and its usage series, (re)created full: a success is charged and counted by these. */
export function openPool(db: Database) {
  for (const t of ["accounts", "usage"]) db.run(`DROP TABLE IF EXISTS ${t}`);
  db.run("CREATE TABLE accounts (id INTEGER PRIMARY KEY, credits INTEGER NOT NULL)");
  db.run("CREATE TABLE usage (account_id INTEGER NOT NULL, day INTEGER NOT NULL, deliveries INTEGER NOT NULL, PRIMARY KEY (account_id, day))");
  db.run("INSERT INTO accounts (id, credits) VALUES (1, ?)", [CREDITS]);
  const charge = db.query("UPDATE accounts SET credits = credits - ? WHERE id = 1");
  const count = db.query("INSERT INTO usage (account_id, day, deliveries) VALUES (1, ?, ?) ON CONFLICT (account_id, day) DO UPDATE SET deliveries = deliveries + excluded.deliveries");
  return (succeeded: number, nowMs: number) => {
    charge.run(succeeded);
    count.run(Math.floor(nowMs / 86_400_000), succeeded);
  };
}

/** The claim's bound: no more rows than the pool can pay for. */
export const POOL_BOUND = "min(?, (SELECT credits FROM accounts WHERE id = 1))";

/** A store the contract loop runs over: its round, and how to close it. */
export type ContractStore = { commit: Commit<Attempt>; close(): void };

/** An outbox row as the outbox writes one when a delivery is queued; `?`s: id, due, created, updated. Answers its rowid as `row`. */
export const OUTBOX_ROW = `INSERT INTO deliveries (id, account_id, endpoint_id, kind, event_type, network, status, attempts, next_attempt_at, credits_charged, created_at, updated_at, replay)
  VALUES (?, 'acc_bench', 'whe_bench', 'event', 'payment', 'eth', 'pending', 0, ?, 0, ?, ?, 0) RETURNING rowid AS row`;

/**
 * Queues `bodies` as the outbox does, in one transaction: each an outbox row (OUTBOX_ROW, its text
 * id from `newId`, due at `queuedAt`) and its body a row of `delivery_bodies`. Returns the rows' rowids.
 */
export function queueOutbox(db: Database, bodies: readonly string[], newId: () => string, queuedAt: number): number[] {
  const row = db.query<{ row: number }, [string, number, number, number]>(OUTBOX_ROW);
  const body = db.query("INSERT INTO delivery_bodies (delivery_id, body) VALUES (?, ?)");
  return db.transaction(() =>
    bodies.map((b) => {
      const id = newId();
      body.run(id, b);
      return (row.get(id, queuedAt, queuedAt, queuedAt) as { row: number }).row;
    }),
  )();
}

/** The bodies of claimed rows (by the rows' text ids), found by key: what the outbox's claim joins to each row. */
export function outboxBodies(db: Database): (rows: { id: number; key: string }[]) => ClaimedRow[] {
  const of = perCount(db, (n) => `SELECT delivery_id AS key, body FROM delivery_bodies WHERE delivery_id IN (${inList(n)})`);
  return (rows) => {
    if (rows.length === 0) return [];
    const byKey = new Map((of(rows.length).all(...rows.map((r) => r.key)) as { key: string; body: string }[]).map((b) => [b.key, b.body]));
    return rows.map((r) => ({ id: r.id, key: r.key, body: byKey.get(r.key) as string }));
  };
}

/** A claimed row: the number the send step knows it by, its text id, its body. */
export type ClaimedRow = Job & { key: string };

/**
 * The round of a store that keeps the outbox's log: each attempt a row of `delivery_attempts` (by
 * its delivery's text id), the successes settled by `settle` and paid from the pool, then `claim`.
 * The send step knows a claimed row by a number; `settle` gets those numbers and their text ids.
 */
export function outboxCommit(
  db: Database,
  pay: (succeeded: number, nowMs: number) => void,
  settle: (rows: number[], nowMs: number, idOf: (row: number) => string) => void,
  claim: (limit: number, nowMs: number, leaseUntil: number) => ClaimedRow[],
): Commit<Attempt> {
  const round = inWriteRound(db);
  const recordOf = perCount(
    db,
    (n) => `INSERT INTO delivery_attempts (delivery_id, attempt, url, started_at, duration_ms, status_code, error, response_snippet) VALUES ${"(?, 1, 'hook', ?, ?, ?, ?, ?),".repeat(n - 1)}(?, 1, 'hook', ?, ?, ?, ?, ?)`,
  );
  const ids = new Map<number, string>();
  const idOf = (row: number) => ids.get(row) as string;
  return (done, limit, nowMs, leaseUntil) =>
    round(() => {
      if (done.length > 0) {
        recordOf(done.length).run(...done.flatMap((a) => [idOf(a.id), a.at, a.durationMs, a.status, a.error, a.response]));
        const succeeded = done.filter((a) => a.ok).map((a) => a.id);
        if (succeeded.length > 0) {
          settle(succeeded, nowMs, idOf);
          pay(succeeded.length, nowMs);
        }
        for (const a of done) ids.delete(a.id);
      }
      if (limit === 0) return [];
      const claimed = claim(limit, nowMs, leaseUntil);
      for (const j of claimed) ids.set(j.id, j.key);
      return claimed;
    });
}

/** Opens the loop's tables at `path`, (re)created holding `bodies` for one account with a full pool; returns its round. */
export function openContractStore(path: string, bodies: string[]): ContractStore {
  const db = openSqlite(path);
  for (const t of ["jobs", "attempts"]) db.run(`DROP TABLE IF EXISTS ${t}`);
  const pay = openPool(db);
  db.run("CREATE TABLE jobs (id INTEGER PRIMARY KEY, account_id INTEGER NOT NULL, body TEXT NOT NULL, done INTEGER NOT NULL DEFAULT 0, lease_until INTEGER NOT NULL DEFAULT 0)");
  db.run("CREATE INDEX jobs_due ON jobs (id) WHERE done = 0");
  db.run("CREATE TABLE attempts (id INTEGER PRIMARY KEY, job_id INTEGER NOT NULL, status INTEGER, duration_ms INTEGER NOT NULL, error TEXT, response TEXT NOT NULL, at INTEGER NOT NULL)");
  db.run("CREATE INDEX attempts_job ON attempts (job_id)");
  const insert = db.query("INSERT INTO jobs (account_id, body) VALUES (1, ?)");
  db.transaction(() => {
    for (const b of bodies) insert.run(b);
  })();
  const round = inWriteRound(db);
  const claim = db.query<Job, [number, number, number]>(
    `UPDATE jobs SET lease_until = ? WHERE id IN (
       SELECT id FROM jobs WHERE done = 0 AND lease_until < ? ORDER BY id LIMIT ${POOL_BOUND}
     ) RETURNING id, body`,
  );
  const markOf = perCount(db, (n) => `UPDATE jobs SET done = 1 WHERE id IN (${inList(n)})`);
  const recordOf = perCount(db, (n) => `INSERT INTO attempts (job_id, status, duration_ms, error, response, at) VALUES ${"(?, ?, ?, ?, ?, ?),".repeat(n - 1)}(?, ?, ?, ?, ?, ?)`);
  return {
    commit: (done, limit, nowMs, leaseUntil) =>
      round(() => {
        if (done.length > 0) {
          recordOf(done.length).run(...done.flatMap((a) => [a.id, a.status, a.durationMs, a.error, a.response, a.at]));
          const succeeded = done.filter((a) => a.ok).map((a) => a.id);
          if (succeeded.length > 0) {
            markOf(succeeded.length).run(...succeeded);
            pay(succeeded.length, nowMs);
          }
        }
        return limit > 0 ? claim.all(leaseUntil, nowMs, limit) : [];
      }),
    close: () => db.close(),
  };
}

/**
 * The same loop over chainwatch's own outbox instead of its one-index `jobs` table: the
 * `deliveries`, `delivery_bodies` and `delivery_attempts` tables as the migrations make them
 * (`schema`: their CREATE TABLE and CREATE INDEX statements, read from a migrated database), every
 * index included, rows with text ids written as the outbox writes them. The statements are the
 * loop's, in the outbox's columns: the claim leases the oldest due live rows in one UPDATE …
 * RETURNING and reads their bodies by key; a success
 * is marked succeeded with what the delivery log shows of it (its status code, attempts, charge
 * and times), and its attempt is a row of `delivery_attempts`. Against the loop on `jobs`, this
 * is what the outbox's shape costs the contract's least implementation: the indexes every status
 * change moves, the wider rows, the text keys.
 */
export function openOutboxContractStore(path: string, bodies: string[], schema: readonly string[], newId: () => string): ContractStore {
  const db = openSqlite(path);
  for (const t of OUTBOX_TABLES) db.run(`DROP TABLE IF EXISTS ${t}`);
  for (const statement of schema) db.run(statement);
  const pay = openPool(db);
  queueOutbox(db, bodies, newId, Date.now() - 1000);
  const lease = outboxLease<{ id: number; key: string }>(db, "rowid AS id, id AS key");
  const withBodies = outboxBodies(db);
  return { commit: outboxRound(db, pay, (limit, nowMs, leaseUntil) => withBodies(lease.all(leaseUntil, nowMs, nowMs, limit))), close: () => db.close() };
}

/** The contract loop's claim over the outbox: leases the oldest due live rows in one UPDATE, answering `returning` of each. */
export function outboxLease<R>(db: Database, returning: string) {
  return db.query<R, [number, number, number, number]>(
    `UPDATE deliveries SET lease_until = ? WHERE id IN (
       SELECT id FROM deliveries WHERE status = 'pending' AND replay = 0 AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until < ?)
       ORDER BY next_attempt_at LIMIT ${POOL_BOUND}
     ) RETURNING ${returning}`,
  );
}

/** The contract loop's round over the outbox: each success marked succeeded by its text id, through the primary key, as the daemon marks them; `claim` for the rest. */
export function outboxRound(db: Database, pay: (succeeded: number, nowMs: number) => void, claim: (limit: number, nowMs: number, leaseUntil: number) => ClaimedRow[]): Commit<Attempt> {
  const markOf = perCount(
    db,
    (n) => `UPDATE deliveries SET status = 'succeeded', attempts = attempts + 1, lease_until = NULL, last_status_code = ?, last_error = NULL,
credits_charged = ?, updated_at = ?, completed_at = ? WHERE id IN (${inList(n)})`,
  );
  return outboxCommit(db, pay, (rows, nowMs, idOf) => markOf(rows.length).run(200, 1, nowMs, nowMs, ...rows.map(idOf)), claim);
}

/** The outbox's tables: its rows, their bodies, their attempts. */
const OUTBOX_TABLES = ["deliveries", "delivery_bodies", "delivery_attempts"];

/** The signed POST: the contract's headers, two HMACs from one keyed hasher, the answer's first 1 KiB kept. */
export function signedPost(hookUrl: string, post: typeof fetch = fetch): Send<Attempt> {
  const keyed = new Bun.CryptoHasher("sha256", KEY);
  return async (job) => {
    const at = Date.now();
    const ts = String(Math.floor(at / 1000));
    const id = `dlv_${job.id}`;
    const hex = keyed.copy().update(ts).update(".").update(job.body).digest("hex");
    const standard = keyed.copy().update(id).update(".").update(ts).update(".").update(job.body).digest("base64");
    const started = performance.now();
    try {
      const res = await post(hookUrl, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          "User-Agent": USER_AGENT,
          "X-Timestamp": ts,
          "X-Signature": hex,
          "X-Webhook-Id": id,
          "webhook-id": id,
          "webhook-timestamp": ts,
          "webhook-signature": `v1,${standard}`,
        },
        body: job.body,
        // A 2xx within the timeout succeeds; a redirect is not followed.
        redirect: "manual",
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      const text = await res.text();
      return { id: job.id, ok: res.ok, status: res.status, durationMs: Math.round(performance.now() - started), error: res.ok ? null : `HTTP ${res.status}`, response: text.slice(0, 1024), at };
    } catch (e) {
      return { id: job.id, ok: false, status: 0, durationMs: Math.round(performance.now() - started), error: String(e), response: "", at };
    }
  };
}

if (import.meta.main) {
  const [url, hookUrl, bodiesFile, concurrencyArg, outboxOf] = process.argv.slice(2);
  if (!url.startsWith("sqlite://")) throw new Error("the contract loop runs on SQLite only");
  const path = url.slice("sqlite://".length);
  const bodies = JSON.parse(readFileSync(bodiesFile, "utf8")) as string[];
  // With a fifth argument, a daemon's migrated SQLite file: the loop runs over copies of its outbox tables.
  const store = outboxOf ? openOutboxContractStore(path, bodies, outboxSchemaOf(outboxOf), () => newTimeOrderedId("dlv")) : openContractStore(path, bodies);
  await serveLoop(store.commit, signedPost(hookUrl), Number(concurrencyArg ?? 32), () => store.close());
}

/** The CREATE statements of the outbox's tables and indexes in a migrated SQLite file. */
export function outboxSchemaOf(path: string): string[] {
  const migrated = new Database(path, { readonly: true });
  try {
    return migrated
      .query<{ sql: string }, []>(`SELECT sql FROM sqlite_master WHERE tbl_name IN (${OUTBOX_TABLES.map((t) => `'${t}'`).join(", ")}) AND sql IS NOT NULL ORDER BY type DESC, name`)
      .all()
      .map((r) => r.sql);
  } finally {
    migrated.close();
  }
}
