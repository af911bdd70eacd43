// Would another outbox meet the delivery target? `bun run bench:outbox-shapes`: the contract loop
// (support/contract-loop.ts: the least the delivery contract asks of a webhook that succeeds) run
// in one process, every POST answered at once by a stub `fetch` (no sockets, as bench:deliver-core),
// over seven stores in turn each round:
//
// - outbox today: copies of chainwatch's `deliveries`, `delivery_bodies` and `delivery_attempts`,
//   every index, as the migrations make them; the claim reads each row's body by key, a success
//   marks its row `succeeded` (openOutboxContractStore);
// - body in its row: the outbox before its bodies had a table of their own, each body in its row,
//   which the lease and the settlement then rewrite with the rest of it;
// - narrow queue: the same log rows and bodies, written when a delivery is queued, less the due index; the live
//   rows' schedule in a queue of three integers (the row, when due, its lease) that the claim reads;
//   a success marks its log row and deletes its queue row;
// - narrow queue, outcome rows: as the narrow queue, but a log row is never updated: a success
//   writes a narrow row of its outcome (status, attempts, status code, charge, time) beside it;
// - log at settlement: the live rows, whole, in a queue table of the outbox's columns, and a log row
//   written once, at settlement (INSERT … SELECT from the queue, then DELETE);
// - the contract loop's own one-index table, and the durable loop (support/durable-loop.ts).
//
// The other shapes keep what the delivery log shows of a succeeded delivery (its row and its body,
// its status, attempts, status code, charge and times; its attempt rows) and nothing less. None is
// built in the daemon: this measures what a store's shape costs before any code of chainwatch's runs.
// BENCH_DELIVERIES (20,000) rows a round, BENCH_ROUNDS (5) rounds, 32 POSTs in flight, bodies of
// BENCH_BODY_BYTES when set (support/bodies.ts); CPU µs a delivery of this process's threads (from
// /proc), medians (lowest–highest round), and ratios within each round.
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config/load.ts";
import { openContext } from "../src/daemon.ts";
import { newTimeOrderedId } from "../src/lib/ids.ts";
import { type ClaimedRow, type ContractStore, openContractStore, openOutboxContractStore, openPool, outboxCommit, outboxLease, outboxRound, outboxSchemaOf, POOL_BOUND, queueOutbox, signedPost } from "./support/contract-loop.ts";
import { threadKindsSince, threadRunTimes } from "./support/cpu.ts";
import { writeDaemonConfig } from "./support/daemons.ts";
import { inList, openSqlite, openStore, perCount, postBody, runLoop } from "./support/durable-loop.ts";
import { median, spread } from "./support/rounds.ts";
import { benchBodies, bodiesLabel } from "./support/bodies.ts";

const TOTAL = Number(process.env.BENCH_DELIVERIES ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONCURRENCY = 32;
const HOOK = "http://127.0.0.1:9/hook";
/** The delivery target: CPU a delivery within this many times the durable loop's. */
const TARGET = 1.3;

const stub = (async () => new Response("ok", { status: 200, headers: { "content-length": "2" } })) as unknown as typeof fetch;

/** A fresh SQLite file at `path` holding the outbox's tables (less those `leaveOut` matches) and a full pool. */
function freshOutbox(path: string, schema: readonly string[], leaveOut?: RegExp): { db: Database; pay: ReturnType<typeof openPool> } {
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
  const db = openSqlite(path);
  for (const statement of schema) if (!leaveOut?.test(statement)) db.run(statement);
  return { db, pay: openPool(db) };
}

/**
 * The narrow queue: log rows written at queueing (no due index), their schedule in `delivery_queue`.
 * With `outcomes`, a success writes a row of `delivery_outcomes` instead of updating its log row.
 */
function openNarrowQueue(path: string, bodies: string[], schema: readonly string[], outcomes: boolean): ContractStore {
  const { db, pay } = freshOutbox(path, schema, /\bdeliveries_due\b/);
  db.run("CREATE TABLE delivery_queue (delivery INTEGER PRIMARY KEY, next_attempt_at INTEGER NOT NULL, lease_until INTEGER)");
  db.run("CREATE INDEX delivery_queue_due ON delivery_queue (next_attempt_at)");
  if (outcomes)
    db.run("CREATE TABLE delivery_outcomes (delivery INTEGER PRIMARY KEY, status TEXT NOT NULL, attempts INTEGER NOT NULL, last_status_code INTEGER, credits_charged INTEGER NOT NULL, completed_at INTEGER NOT NULL)");
  const queuedAt = Date.now() - 1000;
  const schedule = db.query("INSERT INTO delivery_queue (delivery, next_attempt_at) VALUES (?, ?)");
  const rows = queueOutbox(db, bodies, () => newTimeOrderedId("dlv"), queuedAt);
  db.transaction(() => {
    for (const row of rows) schedule.run(row, queuedAt);
  })();
  const due = db.query<{ delivery: number }, [number, number, number]>(
    `SELECT delivery FROM delivery_queue WHERE next_attempt_at <= ? AND (lease_until IS NULL OR lease_until < ?) ORDER BY next_attempt_at LIMIT ${POOL_BOUND}`,
  );
  const leaseOf = perCount(db, (n) => `UPDATE delivery_queue SET lease_until = ? WHERE delivery IN (${inList(n)})`);
  const rowsOf = perCount(db, (n) => `SELECT d.rowid AS id, d.id AS key, b.body FROM deliveries AS d INNER JOIN delivery_bodies AS b ON b.delivery_id = d.id WHERE d.rowid IN (${inList(n)})`);
  const settleOf = outcomes
    ? perCount(db, (n) => `INSERT INTO delivery_outcomes (delivery, status, attempts, last_status_code, credits_charged, completed_at) VALUES ${"(?, 'succeeded', 1, 200, 1, ?),".repeat(n - 1)}(?, 'succeeded', 1, 200, 1, ?)`)
    : perCount(db, (n) => `UPDATE deliveries SET status = 'succeeded', attempts = attempts + 1, last_status_code = 200, credits_charged = 1, updated_at = ?, completed_at = ? WHERE rowid IN (${inList(n)})`);
  const unscheduleOf = perCount(db, (n) => `DELETE FROM delivery_queue WHERE delivery IN (${inList(n)})`);
  const settle = (rows: number[], nowMs: number) => {
    if (outcomes) settleOf(rows.length).run(...rows.flatMap((row) => [row, nowMs]));
    else settleOf(rows.length).run(nowMs, nowMs, ...rows);
    unscheduleOf(rows.length).run(...rows);
  };
  const claim = (limit: number, nowMs: number, leaseUntil: number): ClaimedRow[] => {
    const rows = due.all(nowMs, nowMs, limit).map((r) => r.delivery);
    if (rows.length === 0) return [];
    leaseOf(rows.length).run(leaseUntil, ...rows);
    return rowsOf(rows.length).all(...rows) as ClaimedRow[];
  };
  return { commit: outboxCommit(db, pay, settle, claim), close: () => db.close() };
}

/** Live rows whole in a queue of the outbox's columns; a log row written once, at settlement. */
function openLogAtSettlement(path: string, bodies: string[], schema: readonly string[]): ContractStore {
  const { db, pay } = freshOutbox(path, schema);
  db.run(`CREATE TABLE delivery_queue (row INTEGER PRIMARY KEY, id TEXT NOT NULL, account_id TEXT NOT NULL, endpoint_id TEXT, kind TEXT NOT NULL, event_type TEXT,
    network TEXT, body TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, next_attempt_at INTEGER NOT NULL, lease_until INTEGER, created_at INTEGER NOT NULL)`);
  db.run("CREATE INDEX delivery_queue_due ON delivery_queue (next_attempt_at)");
  const queuedAt = Date.now() - 1000;
  const queue = db.query("INSERT INTO delivery_queue (id, account_id, endpoint_id, kind, event_type, network, body, next_attempt_at, created_at) VALUES (?, 'acc_bench', 'whe_bench', 'event', 'payment', 'eth', ?, ?, ?)");
  db.transaction(() => {
    for (const b of bodies) queue.run(newTimeOrderedId("dlv"), b, queuedAt, queuedAt);
  })();
  const claim = db.query<ClaimedRow, [number, number, number, number]>(
    `UPDATE delivery_queue SET lease_until = ? WHERE row IN (
       SELECT row FROM delivery_queue WHERE next_attempt_at <= ? AND (lease_until IS NULL OR lease_until < ?) ORDER BY next_attempt_at LIMIT ${POOL_BOUND}
     ) RETURNING row AS id, id AS key, body`,
  );
  const logOf = perCount(
    db,
    (n) => `INSERT INTO deliveries (id, account_id, endpoint_id, kind, event_type, network, status, attempts, next_attempt_at, credits_charged, created_at, updated_at, completed_at, last_status_code, replay)
      SELECT id, account_id, endpoint_id, kind, event_type, network, 'succeeded', attempts + 1, next_attempt_at, 1, created_at, ?, ?, 200, 0 FROM delivery_queue WHERE row IN (${inList(n)})`,
  );
  const bodiesOf = perCount(db, (n) => `INSERT INTO delivery_bodies (delivery_id, body) SELECT id, body FROM delivery_queue WHERE row IN (${inList(n)})`);
  const unqueueOf = perCount(db, (n) => `DELETE FROM delivery_queue WHERE row IN (${inList(n)})`);
  const settle = (rows: number[], nowMs: number) => {
    logOf(rows.length).run(nowMs, nowMs, ...rows);
    bodiesOf(rows.length).run(...rows);
    unqueueOf(rows.length).run(...rows);
  };
  return { commit: outboxCommit(db, pay, settle, (limit, nowMs, leaseUntil) => claim.all(leaseUntil, nowMs, nowMs, limit)), close: () => db.close() };
}

/**
 * The outbox before its bodies had a table of their own (migration 0036): each body in its row,
 * which the claim's lease and the settlement then rewrite with the rest of the row.
 */
function openBodyInRow(path: string, bodies: string[], schema: readonly string[]): ContractStore {
  const { db, pay } = freshOutbox(path, schema, /\bdelivery_bodies\b/);
  db.run("ALTER TABLE deliveries ADD COLUMN body TEXT NOT NULL DEFAULT ''");
  const queuedAt = Date.now() - 1000;
  const insert = db.query(`INSERT INTO deliveries (id, account_id, endpoint_id, kind, event_type, network, body, status, attempts, next_attempt_at, credits_charged, created_at, updated_at, replay)
    VALUES (?, 'acc_bench', 'whe_bench', 'event', 'payment', 'eth', ?, 'pending', 0, ?, 0, ?, ?, 0)`);
  db.transaction(() => {
    for (const b of bodies) insert.run(newTimeOrderedId("dlv"), b, queuedAt, queuedAt, queuedAt);
  })();
  const claim = outboxLease<ClaimedRow>(db, "rowid AS id, id AS key, body");
  return { commit: outboxRound(db, pay, (limit, nowMs, leaseUntil) => claim.all(leaseUntil, nowMs, nowMs, limit)), close: () => db.close() };
}

type Shape = "outbox today" | "body in its row" | "narrow queue" | "narrow queue, outcome rows" | "log at settlement" | "contract loop" | "durable loop";
const SHAPES: Shape[] = ["outbox today", "body in its row", "narrow queue", "narrow queue, outcome rows", "log at settlement", "contract loop", "durable loop"];

const dir = mkdtempSync(join(tmpdir(), "chainwatch-bench-shapes-"));
try {
  // The outbox's tables as the daemon's migrations make them.
  const loaded = loadConfig(writeDaemonConfig(dir, `sqlite://${dir}/daemon.db`, []));
  if (!loaded.ok) throw new Error(loaded.error);
  await (await openContext(loaded.config, { env: {} })).db.destroy();
  const schema = outboxSchemaOf(join(dir, "daemon.db"));
  const bodies = benchBodies(TOTAL);
  const open: Record<Exclude<Shape, "durable loop">, () => ContractStore> = {
    "outbox today": () => openOutboxContractStore(join(dir, "outbox.db"), bodies, schema, () => newTimeOrderedId("dlv")),
    "body in its row": () => openBodyInRow(join(dir, "inrow.db"), bodies, schema),
    "narrow queue": () => openNarrowQueue(join(dir, "queue.db"), bodies, schema, false),
    "narrow queue, outcome rows": () => openNarrowQueue(join(dir, "outcomes.db"), bodies, schema, true),
    "log at settlement": () => openLogAtSettlement(join(dir, "settlement.db"), bodies, schema),
    "contract loop": () => openContractStore(join(dir, "contract.db"), bodies),
  };
  /** One round of `shape`: CPU µs a delivery of this process's threads while its loop ran. */
  const runShape = async (shape: Shape): Promise<number> => {
    if (shape === "durable loop") {
      const store = await openStore(`sqlite://${join(dir, "durable.db")}`, bodies);
      const before = threadRunTimes(process.pid);
      const out = await runLoop((done: number[], limit, nowMs, leaseUntil) => store.commit(done, limit, nowMs, leaseUntil), postBody(HOOK, stub), CONCURRENCY);
      const used = threadKindsSince(process.pid, before).total;
      await store.close();
      if (out.sent !== TOTAL || out.failed !== 0) throw new Error(`the durable loop sent ${out.sent}, ${out.failed} failed`);
      return used / TOTAL;
    }
    const store = open[shape]();
    const before = threadRunTimes(process.pid);
    const out = await runLoop(store.commit, signedPost(HOOK, stub), CONCURRENCY);
    const used = threadKindsSince(process.pid, before).total;
    store.close();
    if (out.sent !== TOTAL || out.failed !== 0) throw new Error(`${shape} sent ${out.sent}, ${out.failed} failed`);
    return used / TOTAL;
  };

  console.log(`deliveries: ${TOTAL} a round, ${ROUNDS} round(s), ${CONCURRENCY} in flight, ${bodiesLabel()}; the contract loop over each store, every POST answered at once by a stub fetch in this process`);
  const us = new Map<Shape, number[]>(SHAPES.map((s) => [s, []]));
  for (let r = 1; r <= ROUNDS; r++) {
    for (const shape of SHAPES) (us.get(shape) as number[]).push(await runShape(shape));
    console.log(`round ${r}: ${SHAPES.map((s) => `${s} ${(us.get(s) as number[])[r - 1].toFixed(1)}`).join(" · ")} µs a delivery`);
  }
  const of = (s: Shape) => us.get(s) as number[];
  const ratio = (a: Shape, b: Shape) => of(a).map((v, i) => v / of(b)[i]);
  console.log("CPU µs a delivery, median (lowest–highest round); within each round, against the contract loop's own table and against the durable loop:");
  for (const s of SHAPES) console.log(`  ${s.padEnd(28)} ${spread(of(s), 1).padEnd(20)} ${spread(ratio(s, "contract loop"), 2)}×  ${spread(ratio(s, "durable loop"), 2)}×`);
  const best = SHAPES.filter((s) => s !== "contract loop" && s !== "durable loop").sort((a, b) => median(of(a)) - median(of(b)))[0];
  const above = median(of(best)) - median(of("contract loop"));
  console.log(
    `the cheapest store that keeps the delivery log: ${best}, ${above.toFixed(1)} µs a delivery above the contract loop's own table ` +
      `(the outbox today: ${(median(of("outbox today")) - median(of("contract loop"))).toFixed(1)}); this bench has no daemon, so it meets or misses no target itself: ` +
      `it says what a store's shape costs before chainwatch's code runs, where the target is ${TARGET}× the durable loop (bench:deliver)`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
