// Where a delivery's CPU goes (not a test): `bun bench/deliver-stages.ts [--database postgres]
// [--accounts N]`. In this process, over its own database, 20,000 queued deliveries go through the
// loop's database steps one batch of 64 at a time, each step timed with process.cpuUsage():
// claim (select due rows + lease), sign (both signatures of each row), settle (outcome rows,
// attempt log, charge, usage, endpoint health) and commit. On SQLite the commit includes SQLite's
// automatic WAL checkpoint (every 1,000 pages); `--no-checkpoint` turns it off (wal_autocheckpoint
// = 0), and the difference is the checkpoint's share. On PostgreSQL it counts
// the statements sent to the server per step (each a round trip) and adds the server's CPU.
// The send itself (fetch to a receiver) is what `bench:deliver` adds on top.
// `--floor` then runs the same batches through the durable raw loop's bookkeeping
// (support/durable-loop.ts: one table, one transaction a batch marking the previous batch done and
// claiming the next with one UPDATE … RETURNING) over a database of its own on the same engine, so
// the line after it is the least a durable outbox costs per delivery at this batch size.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import pg from "pg";
import { createAccount } from "../src/accounts/accounts.ts";
import { setPlan } from "../src/accounts/plans.ts";
import { loadConfig } from "../src/config/load.ts";
import { openContext } from "../src/daemon.ts";
import { claimDueDeliveries } from "../src/delivery/claim.ts";
import { recordEndpointAttempts } from "../src/webhooks/health-store.ts";
import { enqueueDelivery } from "../src/delivery/outbox.ts";
import { recordOutcomes, type Settlement } from "../src/delivery/settle.ts";
import { webhookHeaders, webhookKey } from "../src/delivery/signer.ts";
import { cpuOfTree, ownCpuUs } from "./support/cpu.ts";
import { writeDaemonConfig } from "./support/daemons.ts";
import { startCluster } from "./support/postgres.ts";
import { openStore } from "./support/durable-loop.ts";
import { pointWebhook } from "./support/endpoint.ts";

const TOTAL = 20_000;
const BATCH = Number(process.env.STAGES_BATCH ?? 64);
const argv = process.argv.slice(2);
const postgres = argv.includes("--database") && argv[argv.indexOf("--database") + 1] === "postgres";
const noCheckpoint = argv.includes("--no-checkpoint");
const floor = argv.includes("--floor");
const accounts = argv.includes("--accounts") ? Number(argv[argv.indexOf("--accounts") + 1]) : 1;

// Statements sent to PostgreSQL: every pooled client's query() is one round trip.
let sent = 0;
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  sent++;
  return (query as (...a: unknown[]) => unknown).apply(this, args);
} as typeof query;


const dir = mkdtempSync(join(tmpdir(), "chainwatch-bench-stages-"));
const cluster = postgres ? await startCluster() : undefined;
try {
  const url = cluster ? await cluster.createDatabase("stages") : `sqlite://${dir}/cw.db`;
  const loaded = loadConfig(writeDaemonConfig(dir, url, []));
  if (!loaded.ok) throw new Error(loaded.error);
  const ctx = await openContext(loaded.config, { env: {} });
  const plan = await setPlan(ctx.db, ctx.clock, { name: "bench", slots: 1 });
  if (!plan.ok) throw new Error(plan.error);
  const ids: { accountId: string; endpointId: string }[] = [];
  for (let i = 0; i < accounts; i++) {
    const made = await createAccount(ctx, { name: `bench-${i}`, plan: "bench", credits: 1_000_000_000 });
    if (!made.ok) throw new Error(made.error);
    ids.push({ accountId: made.account.id, endpointId: await pointWebhook(ctx.db, made.account.id, "http://127.0.0.1:9/hook") });
  }
  await ctx.db.transaction().execute(async (trx) => {
    const now = Date.now() - 1000;
    for (let i = 0; i < TOTAL; i++)
      await enqueueDelivery(trx, { ...ids[i % accounts], kind: "event", eventType: "payment", network: "eth", body: JSON.stringify({ n: i, pad: "x".repeat(300) }), nowMs: now });
  });
  if (cluster) await sql`analyze deliveries`.execute(ctx.db);
  if (!cluster && noCheckpoint) await sql`pragma wal_autocheckpoint = 0`.execute(ctx.db);

  const t = { claim: 0, sign: 0, settle: 0, commit: 0, server: 0 };
  const trips = { begin: 0, claim: 0, settle: 0, commit: 0 };
  const key = webhookKey("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
  const server0 = cluster ? cpuOfTree(cluster.pid) : 0;
  let done = 0;
  let batches = 0;
  while (done < TOTAL) {
    // One commit of the loop, split: BEGIN, settle the previous batch, claim the next, COMMIT.
    const trx = await ctx.db.startTransaction().execute();
    let c0 = ownCpuUs();
    let s0 = sent;
    const nowMs = Date.now();
    const { claimed } = await claimDueDeliveries(trx, { nowMs, leaseMs: 30_000, limit: BATCH, priceOf: () => 1, newest: false });
    t.claim += ownCpuUs() - c0;
    trips.claim += sent - s0;
    c0 = ownCpuUs();
    for (const d of claimed) webhookHeaders({ id: d.id, body: d.body, timestampSec: Math.floor(nowMs / 1000), key, userAgent: "chainwatch/bench" });
    t.sign += ownCpuUs() - c0;
    c0 = ownCpuUs();
    s0 = sent;
    const group: (Settlement & { delivery: (typeof claimed)[number] })[] = claimed.map((d) => ({
      delivery: d,
      attempt: { url: "http://127.0.0.1:9/hook", startedAt: nowMs, durationMs: 1, statusCode: 200, error: null, snippet: "ok" },
      outcome: { ok: true, price: 1 },
    }));
    const settled = await recordOutcomes(trx, group, nowMs);
    const attempts = group.filter((s) => settled.has(s.delivery.id)).map((s) => ({ endpointId: s.delivery.endpoint_id as string, accountId: s.delivery.account_id, attempt: s.attempt }));
    await recordEndpointAttempts(trx, attempts, nowMs, 0);
    t.settle += ownCpuUs() - c0;
    trips.settle += sent - s0;
    c0 = ownCpuUs();
    s0 = sent;
    await trx.commit().execute();
    t.commit += ownCpuUs() - c0;
    trips.commit += sent - s0;
    done += claimed.length;
    batches++;
    if (claimed.length === 0) break;
  }
  t.server = cluster ? (cpuOfTree(cluster.pid) - server0) * 1000 : 0;
  const per = (us: number) => (us / done).toFixed(1);
  console.log(`${postgres ? "PostgreSQL" : "SQLite"}: ${done} deliveries in ${batches} batches of up to ${BATCH}, ${accounts} account(s)`);
  console.log(`CPU µs per delivery: claim ${per(t.claim)}, sign ${per(t.sign)}, settle ${per(t.settle)}, commit ${per(t.commit)}${!cluster ? (noCheckpoint ? " (no WAL checkpoint)" : " (WAL checkpoint included)") : ""}${cluster ? `, PostgreSQL server ${per(t.server)}` : ""}`);
  if (cluster) {
    const b = (n: number) => (n / batches).toFixed(1);
    console.log(`round trips per batch: BEGIN 1, claim ${b(trips.claim)}, settle ${b(trips.settle)}, COMMIT ${b(trips.commit)}`);
    // An update that changes no indexed column and finds room on its page is HOT: no new entry in
    // any of the outbox's indexes. The lease (lease_until) could be; the settlement (status,
    // completed_at) never is. The statistics reach the view within a second or so.
    await Bun.sleep(1500);
    const { rows } = await sql<{ upd: number; hot: number }>`select n_tup_upd as upd, n_tup_hot_upd as hot from pg_stat_user_tables where relname = 'deliveries'`.execute(ctx.db);
    if (rows[0]) console.log(`updates of deliveries: ${rows[0].upd}, of which HOT (no index entries written): ${rows[0].hot}`);
  }
  await ctx.db.destroy();
  if (floor) await runFloor(cluster ? await cluster.createDatabase("floor") : `sqlite://${dir}/floor.db`, t.claim + t.settle + t.commit, done);
} finally {
  cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
}

/**
 * The durable raw loop's bookkeeping over the same bodies and batch size: per batch one
 * transaction (on PostgreSQL one statement) that marks the previous batch done and claims the
 * next; CPU µs per delivery of this process, and on PostgreSQL the server's and the round trips.
 */
async function runFloor(url: string, daemonUs: number, daemonDone: number): Promise<void> {
  const bodies = Array.from({ length: TOTAL }, (_, i) => JSON.stringify({ n: i, pad: "x".repeat(300) }));
  const store = await openStore(url, bodies);
  const server0 = cluster ? cpuOfTree(cluster.pid) : 0;
  const s0 = sent;
  const c0 = ownCpuUs();
  let previous: number[] = [];
  let done = 0;
  let batches = 0;
  for (;;) {
    const now = Date.now();
    const claimed = await store.commit(previous, BATCH, now, now + 30_000);
    batches++;
    done += previous.length;
    if (claimed.length === 0) break;
    previous = claimed.map((j) => j.id);
  }
  const us = ownCpuUs() - c0;
  const server = cluster ? (cpuOfTree(cluster.pid) - server0) * 1000 : 0;
  await store.close();
  const per = (x: number) => (x / done).toFixed(1);
  const daemon = (daemonUs / daemonDone).toFixed(1);
  console.log(
    `durable floor: ${done} deliveries in ${batches} transactions of up to ${BATCH}: CPU µs per delivery ${per(us)}${cluster ? `, PostgreSQL server ${per(server)}, round trips per batch ${((sent - s0) / batches).toFixed(1)}` : ""} (the loop's claim + settle + commit above: ${daemon})`,
  );
}
