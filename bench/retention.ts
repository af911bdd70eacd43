// The hourly prune of a large outbox: `bun run bench:retention`. One SQLite outbox is built once:
// BENCH_OLD (100,000) address-watch deliveries settled 40 days ago, BENCH_RECENT (100,000) settled
// yesterday, BENCH_PAYMENT (20,000) payment orders' webhooks settled 40 days ago (kept: the order's
// history) and 2,000 old ones still pending, each settled one with one logged attempt. Each round,
// two copies of it are pruned of what `delivery.retention_days = 30` deletes, in turn:
//
// - chainwatch: `pruneDeliveries` (src/delivery/retention.ts) over the daemon's connection;
// - the bare loop: bun:sqlite and nothing else, in the same chunks of 1,000 and one write
//   transaction each, reading each chunk's ids through the retention index by name (INDEXED BY)
//   and deleting them and their attempts by key: the least a chunked prune can do on this schema.
//
// It prints the CPU of each side a 1,000 rows pruned and the longest chunk (the longest the write
// lock is held, which the delivery loop and the API wait behind), medians and spread over
// BENCH_ROUNDS (3) rounds, and checks that both left the same rows.
import { Database } from "bun:sqlite";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { createAccount } from "../src/accounts/accounts.ts";
import { loadConfig } from "../src/config/load.ts";
import { openContext } from "../src/daemon.ts";
import { pruneDeliveries } from "../src/delivery/retention.ts";
import { insertDeliveryRows, storedDelivery } from "../test/support/delivery-rows.ts";
import { ownCpuUs } from "./support/cpu.ts";
import { writeDaemonConfig } from "./support/daemons.ts";
import { median, spread } from "./support/rounds.ts";

const OLD = Number(process.env.BENCH_OLD ?? 100_000);
const RECENT = Number(process.env.BENCH_RECENT ?? 100_000);
const PAYMENT = Number(process.env.BENCH_PAYMENT ?? 20_000);
const PENDING = 2_000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DAYS = 30;
const DAY = 86_400_000;
const CHUNK = 1000;
const now = Date.now();

const dir = mkdtempSync(join(tmpdir(), "chainwatch-bench-retention-"));
const configFor = (name: string) => {
  mkdirSync(join(dir, name), { recursive: true });
  const loaded = loadConfig(writeDaemonConfig(dir, `sqlite://${dir}/${name}/cw.db`, []));
  if (!loaded.ok) throw new Error(loaded.error);
  return loaded.config;
};

try {
  // The outbox, built once through the daemon's own migrations.
  const ctx = await openContext(configFor("source"), { env: {} });
  const made = await createAccount(ctx, { name: "retention", credits: 0 });
  if (!made.ok) throw new Error(made.error);
  let n = 0;
  const body = JSON.stringify({ type: "payment", pad: "x".repeat(300) });
  const rows = (count: number, kind: "event" | "payment", status: "succeeded" | "pending", at: number) =>
    Array.from({ length: count }, (_, i) => storedDelivery({ id: `dlv_${(n++).toString(16).padStart(24, "0")}`, accountId: made.account.id, kind, status, at: at + i, body }));
  const kinds: [number, "event" | "payment", "succeeded" | "pending", number][] = [
    [OLD, "event", "succeeded", now - 40 * DAY],
    [RECENT, "event", "succeeded", now - DAY],
    [PAYMENT, "payment", "succeeded", now - 40 * DAY],
    [PENDING, "event", "pending", now - 40 * DAY],
  ];
  for (const [count, kind, status, at] of kinds)
    for (let done = 0; done < count; done += 400) {
      const batch = rows(Math.min(400, count - done), kind, status, at + done);
      const attempts = batch
        .filter((d) => d.attempts > 0)
        .map((d) => ({ delivery_id: d.id, attempt: 1, url: "https://example.com/hook", started_at: d.updated_at, duration_ms: 3, status_code: 200, error: null, response_snippet: "ok" }));
      await ctx.db.transaction().execute(async (trx) => {
        await insertDeliveryRows(trx, batch);
        if (attempts.length > 0) await trx.insertInto("delivery_attempts").values(attempts).execute();
      });
    }
  await sql`pragma wal_checkpoint(truncate)`.execute(ctx.db);
  await ctx.db.destroy();
  const expected = OLD;
  console.log(`outbox: ${n} deliveries (${OLD} settled 40 days ago, ${RECENT} yesterday, ${PAYMENT} payment orders' kept, ${PENDING} pending), one attempt each settled one; ${ROUNDS} round(s), chunks of ${CHUNK}`);

  const copy = (name: string) => {
    mkdirSync(join(dir, name), { recursive: true });
    for (const f of ["cw.db", "cw.db-wal", "cw.db-shm"]) rmSync(join(dir, name, f), { force: true });
    copyFileSync(join(dir, "source", "cw.db"), join(dir, name, "cw.db"));
  };
  const left = (path: string) => {
    const db = new Database(path, { readonly: true });
    const out = JSON.stringify(db.query("select kind, status, count(*) as n from deliveries group by kind, status order by kind, status").all());
    const attempts = (db.query("select count(*) as n from delivery_attempts").get() as { n: number }).n;
    db.close();
    return `${out} attempts ${attempts}`;
  };

  type Side = "chainwatch" | "bare loop";
  const cpu: Record<Side, number[]> = { chainwatch: [], "bare loop": [] };
  const longest: Record<Side, number[]> = { chainwatch: [], "bare loop": [] };
  for (let r = 1; r <= ROUNDS; r++) {
    // chainwatch: the daemon's prune over its own connection.
    copy("chainwatch");
    const c = await openContext(configFor("chainwatch"), { env: {} });
    let last = performance.now();
    let worst = 0;
    const c0 = ownCpuUs();
    const pruned = await pruneDeliveries(c.db, now, DAYS, () => {
      const t = performance.now();
      worst = Math.max(worst, t - last);
      last = t;
      return false;
    });
    cpu.chainwatch.push((ownCpuUs() - c0) / 1000);
    longest.chainwatch.push(worst);
    await c.db.destroy();
    if (pruned.deliveries !== expected) throw new Error(`chainwatch pruned ${pruned.deliveries} deliveries, expected ${expected}`);

    // The bare loop, on a copy of its own.
    copy("bare");
    const db = new Database(join(dir, "bare", "cw.db"), { strict: true });
    for (const p of ["journal_mode = WAL", "synchronous = NORMAL", "cache_size = -65536", "foreign_keys = ON"]) db.run(`PRAGMA ${p}`);
    const select = db.query<{ id: string }, [number]>(
      `SELECT id FROM deliveries INDEXED BY deliveries_prunable WHERE completed_at < ? AND kind <> 'payment' AND status IN ('succeeded', 'failed') ORDER BY completed_at LIMIT ${CHUNK}`,
    );
    const marks = (k: number) => Array(k).fill("?").join(",");
    let bareWorst = 0;
    let bare = 0;
    const b0 = ownCpuUs();
    for (;;) {
      const t = performance.now();
      db.run("BEGIN IMMEDIATE");
      const ids = select.all(now - DAYS * DAY).map((x) => x.id);
      if (ids.length > 0) {
        db.run(`DELETE FROM deliveries WHERE id IN (${marks(ids.length)})`, ids);
        db.run(`DELETE FROM delivery_attempts WHERE delivery_id IN (${marks(ids.length)})`, ids);
      }
      db.run("COMMIT");
      bareWorst = Math.max(bareWorst, performance.now() - t);
      bare += ids.length;
      if (ids.length < CHUNK) break;
    }
    cpu["bare loop"].push((ownCpuUs() - b0) / 1000);
    longest["bare loop"].push(bareWorst);
    db.close();
    if (bare !== expected) throw new Error(`the bare loop pruned ${bare} deliveries, expected ${expected}`);
    const a = left(join(dir, "chainwatch", "cw.db"));
    const b = left(join(dir, "bare", "cw.db"));
    if (a !== b) throw new Error(`the two left different rows: chainwatch ${a}, bare loop ${b}`);
    console.log(
      `round ${r}: chainwatch ${cpu.chainwatch[r - 1].toFixed(0)} ms of CPU, longest chunk ${worst.toFixed(1)} ms · bare loop ${cpu["bare loop"][r - 1].toFixed(0)} ms, longest chunk ${bareWorst.toFixed(1)} ms; both left ${a}`,
    );
  }
  const per1000 = (xs: number[]) => xs.map((x) => (x * 1000) / expected);
  const ratios = cpu.chainwatch.map((x, i) => x / cpu["bare loop"][i]);
  console.log(
    `CPU ms per 1,000 deliveries pruned (median, min–max): chainwatch ${spread(per1000(cpu.chainwatch), 1)}, bare loop ${spread(per1000(cpu["bare loop"]), 1)}; ` +
      `longest chunk: chainwatch ${spread(longest.chainwatch, 1)} ms, bare loop ${spread(longest["bare loop"], 1)} ms`,
  );
  console.log(`chainwatch / bare loop ${spread(ratios, 2)}× in CPU (within each round; ${median(ratios) <= 1.3 ? "within" : "above"} 1.3×)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
