// Delivery benchmark (not a test): `bun run bench:deliver`.
//
// 1. Throughput: 20,000 queued deliveries, sent by the daemon (a `serve` subprocess) to a local
//    Bun receiver (another subprocess), against a raw fetch loop posting the same bodies with the
//    same concurrency to the same receiver. Both rates are measured at the receiver, first to last
//    arrival. The first figure printed is CPU µs per delivery (from /proc: daemons, receiver, and
//    PostgreSQL's processes on PostgreSQL), beside the raw loop's own (this process and the
//    receiver while it ran): steady on a shared machine where the rates swing. Target: daemon /
//    raw >= 0.8.
// 2. Latency: POST /ingest/blocks of one block paying a watched address, to the receipt of its
//    webhook, with the daemon idle (the wake-up path). Target: p99 < 100 ms.
//
// `--database postgres --daemons N` runs both on one daemon over SQLite, one over PostgreSQL and N
// over one PostgreSQL database (a throwaway cluster on this machine, see support/postgres.ts), side
// by side: N daemons claim from the one outbox (FOR UPDATE SKIP LOCKED) and send to the one
// receiver; ingest POSTs go round-robin over their ports. Each set-up is measured against its own
// raw fetch loop, run right after it, and reports the CPU each process used.
//
// Between the two, a baseline made of the fixed stack's parts only (support/durable-loop.ts): the
// raw fetch loop plus the least bookkeeping that keeps "0 lost, at least once" over the same kind
// of database (one table; per round one transaction marking the finished rows done and claiming
// the next with one UPDATE … RETURNING), scheduled as the daemon's loop is; on PostgreSQL one loop
// per daemon on one database. Daemon against durable loop is chainwatch's own work; durable loop
// against raw loop is the floor a durable outbox costs (BENCH_DURABLE=0 skips it).
//
// BENCH_RECOVERY=1 runs, for the same set-ups, the recovery run instead: 50,000 failed deliveries of
// one account recovered and drained while another account's webhooks are timed (deliver-recovery.ts).
// BENCH_REPLAY=1 runs the replay run instead: one account floods the events replay (70 calls in
// 28 s, capped by delivery.max_replay_pending) while another account's webhooks are timed
// (deliver-replay.ts; BENCH_REPLAY_CALLS and BENCH_REPLAY_EVERY_MS change the flood).
// Sizes (env): BENCH_DELIVERIES (20,000 queued), BENCH_LATENCY_SAMPLES (200 blocks), BENCH_ACCOUNTS (1).
import type { Subprocess } from "bun";
import { payingBlock, postBlock } from "./support/paying-block.ts";
import { sql } from "kysely";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { createAccount } from "../src/accounts/accounts.ts";
import { setPlan } from "../src/accounts/plans.ts";
import { loadConfig } from "../src/config/load.ts";
import { openContext } from "../src/daemon.ts";
import { createWakeBus } from "../src/db/wake-bus.ts";
import { enqueueDelivery } from "../src/delivery/outbox.ts";
import { addWatch } from "../src/watch/watches.ts";
import { cpuOf, cpuOfTree, type CpuWindow, cpuPerUnit, describeCpu, loadAverage, startCpuWindow } from "./support/cpu.ts";
import { killOnInterrupt, onInterrupt } from "./support/interrupt.ts";
import { firstLine, spawnDaemons, stopAll, writeDaemonConfig } from "./support/daemons.ts";
import { type BenchCluster, serverVersion, startCluster } from "./support/postgres.ts";
import { type Scenario, scenarioLabel, scenariosFromArgv } from "./support/scenarios.ts";
import { RECOVERED, type RecoveryOutcome, runRecovery } from "./deliver-recovery.ts";
import { type ReplayOutcome, runReplay, STORED } from "./deliver-replay.ts";
import { pointWebhook } from "./support/endpoint.ts";

const TOTAL = positiveIntFromEnv("BENCH_DELIVERIES", 20_000);
const CONCURRENCY = 32;
const ACCOUNTS = positiveIntFromEnv("BENCH_ACCOUNTS", 1);
// BENCH_RECOVERY=1: the recovery run instead (bench/deliver-recovery.ts); BENCH_RECOVERY_MAX_RPS
// gives the recovered account's webhook a delivery rate limit (default none).
const RECOVERY = process.env.BENCH_RECOVERY === "1";
const RECOVERY_MAX_RPS = process.env.BENCH_RECOVERY_MAX_RPS ? positiveIntFromEnv("BENCH_RECOVERY_MAX_RPS", 1) : 0;
const REPLAY = process.env.BENCH_REPLAY === "1";
const REPLAY_CALLS = positiveIntFromEnv("BENCH_REPLAY_CALLS", 70);
const REPLAY_EVERY_MS = positiveIntFromEnv("BENCH_REPLAY_EVERY_MS", 400);
const LATENCY_SAMPLES = positiveIntFromEnv("BENCH_LATENCY_SAMPLES", 200);
/** The durable raw loop baseline (support/durable-loop.ts); BENCH_DURABLE=0 leaves it out. */
const DURABLE = process.env.BENCH_DURABLE !== "0";
const INGEST_TOKEN = "bench-token";
const WATCHED = "0x52908400098527886e0f7030069857d2e4169ee7";

/** Wall-clock milliseconds with sub-ms precision, comparable across processes on one machine. */
const wallNow = () => performance.timeOrigin + performance.now();

if (process.argv.includes("--receiver")) runReceiver();
else await main();

/**
 * The receiver subprocess: answers 200 at once, remembers when each delivery and tx hash arrived,
 * and counts each path it is posted to on its own (the recovery run's two accounts).
 */
function runReceiver(): void {
  let count = 0;
  let first = 0;
  let last = 0;
  const byTx = new Map<string, number>();
  const paths = new Map<string, { count: number; txs: Set<string>; first: number; last: number }>();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      if (req.method === "POST") {
        const body = await req.text();
        const at = wallNow();
        if (count === 0) first = at;
        last = at;
        count++;
        const tx = /"tx_hash":"([^"]+)"/.exec(body)?.[1];
        if (tx) byTx.set(tx, at);
        let path = paths.get(url.pathname);
        if (!path) paths.set(url.pathname, (path = { count: 0, txs: new Set(), first: at, last: at }));
        path.count++;
        path.last = at;
        if (tx) path.txs.add(tx);
        return new Response("ok");
      }
      if (url.pathname === "/stats") {
        const byPath = Object.fromEntries([...paths].map(([p, v]) => [p, { count: v.count, unique: v.txs.size, first: v.first, last: v.last }]));
        return Response.json({ count, unique: byTx.size, first, last, paths: byPath });
      }
      if (url.pathname === "/reset") {
        count = first = last = 0;
        byTx.clear();
        paths.clear();
        return Response.json({ ok: true });
      }
      const at = byTx.get(url.pathname.slice("/tx/".length));
      return at === undefined ? new Response(null, { status: 404 }) : Response.json({ at });
    },
  });
  process.stdout.write(`${JSON.stringify({ port: server.port })}\n`);
}

function positiveIntFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^[1-9][0-9]*$/.test(raw)) {
    console.error(`${name} must be a whole number of at least 1, not ${JSON.stringify(raw)}`);
    process.exit(2);
  }
  return Number(raw);
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function eventBody(i: number): string {
  return JSON.stringify({
    id: `evt_${i.toString(16).padStart(24, "0")}`,
    type: "payment",
    direction: "in",
    watch_id: "aw_000000000000000000000001",
    network: "eth",
    address: WATCHED,
    tx_hash: `0x${i.toString(16).padStart(64, "0")}`,
    block_height: 19_000_000 + i,
    asset: null,
    amount: "1.5",
    amount_raw: "1500000000000000000",
    created_at: new Date().toISOString().replace("Z", "+00:00"),
  });
}

type Stats = { count: number; unique: number; first: number; last: number };

type Outcome = {
  scenario: Scenario;
  daemonRate: number;
  /** From the outbox's commit to the last arrival, incl. the wait for the daemons' next tick (SQLite). */
  daemonWallMs: number;
  duplicates: number;
  rawRate: number;
  /** CPU of the raw fetch loop (this process) and the receiver while the loop ran. */
  rawCpu: CpuWindow;
  /** The durable raw loop(s), when run. */
  durable: DurableOutcome | null;
  p50: number;
  p99: number;
  cpu: CpuWindow;
  load: string;
};

async function main(): Promise<void> {
  const { scenarios, compare } = scenariosFromArgv(process.argv.slice(2), "bun run bench:deliver");
  const dir = mkdtempSync(join(tmpdir(), "chainwatch-bench-deliver-"));
  const children: Subprocess[] = [];
  killOnInterrupt(children);
  onInterrupt(() => rmSync(dir, { recursive: true, force: true }));
  let cluster: BenchCluster | undefined;
  try {
    const receiver = Bun.spawn([process.execPath, import.meta.path, "--receiver"], { stdin: "ignore", stdout: "pipe", stderr: "inherit" });
    children.push(receiver);
    const { port } = JSON.parse(await firstLine(receiver, (l) => l.startsWith("{")));
    const base = `http://127.0.0.1:${port}`;

    const loadBefore = loadAverage();
    if (scenarios.some((s) => s.database === "postgres")) cluster = await startCluster();
    if (REPLAY) {
      const replays: ReplayOutcome[] = [];
      for (const [i, scenario] of scenarios.entries()) {
        if (compare) console.log(`bench:deliver replay ${scenarioLabel(scenario)}…`);
        const sub = join(dir, `p${i}`);
        mkdirSync(sub);
        const url = scenario.database === "sqlite" ? `sqlite://${sub}/cw.db` : await cluster!.createDatabase(`bench_replay_${i}`);
        replays.push(
          await runReplay({ scenario, dir: sub, url, base, receiver, cluster, concurrency: CONCURRENCY, calls: REPLAY_CALLS, everyMs: REPLAY_EVERY_MS, track: (p) => children.push(p) }),
        );
      }
      return printReplay(replays, { postgres: cluster ? await serverVersion(cluster.url) : "", loadBefore, loadAfter: loadAverage() });
    }
    if (RECOVERY) {
      const recoveries: RecoveryOutcome[] = [];
      for (const [i, scenario] of scenarios.entries()) {
        if (compare) console.log(`bench:deliver recovery ${scenarioLabel(scenario)}…`);
        const sub = join(dir, `r${i}`);
        mkdirSync(sub);
        const url = scenario.database === "sqlite" ? `sqlite://${sub}/cw.db` : await cluster!.createDatabase(`bench_recovery_${i}`);
        recoveries.push(
          await runRecovery({ scenario, dir: sub, url, base, receiver, cluster, concurrency: CONCURRENCY, maxRps: RECOVERY_MAX_RPS, track: (p) => children.push(p) }),
        );
      }
      return printRecovery(recoveries, { postgres: cluster ? await serverVersion(cluster.url) : "", loadBefore, loadAfter: loadAverage() });
    }
    const outcomes: Outcome[] = [];
    for (const [i, scenario] of scenarios.entries()) {
      if (compare) console.log(`bench:deliver ${scenarioLabel(scenario)}…`);
      const sub = join(dir, `s${i}`);
      mkdirSync(sub);
      const url = scenario.database === "sqlite" ? `sqlite://${sub}/cw.db` : await cluster!.createDatabase(`bench_deliver_${i}`);
      outcomes.push(await runScenario(scenario, { dir: sub, url, base, receiver, cluster, track: (p) => children.push(p) }));
    }

    if (!compare) return printSingle(outcomes[0]);
    const version = cluster ? await serverVersion(cluster.url) : "";
    printComparison(outcomes, { postgres: version, loadBefore, loadAfter: loadAverage() });
  } finally {
    await stopAll(children);
    cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What the durable raw loop(s) did: rate first→last arrival, CPU of the loops, the receiver (and PostgreSQL), duplicates, and the loops' own counts. */
type DurableOutcome = {
  rate: number;
  cpu: CpuWindow;
  duplicates: number;
  lost: number;
  loops: number;
  sent: number;
  failed: number;
  commits: number;
  claims: number;
  /** Wall ms the loops spent inside their commits (SQLite: the thread busy; PostgreSQL: mostly waiting for the round trip). */
  commitMs: number;
};

type ScenarioEnv = { dir: string; url: string; base: string; receiver: Subprocess; cluster: BenchCluster | undefined; track: (p: Subprocess) => void };

/** One set-up end to end: its own database and daemons, stopped before the next set-up runs. */
async function runScenario(scenario: Scenario, env: ScenarioEnv): Promise<Outcome> {
  const { dir, base } = env;
  const hookUrl = `${base}/hook`;
  const configPath = writeDaemonConfig(dir, env.url, [
    "[ingest]",
    `token = "${INGEST_TOKEN}"`,
    "[delivery]",
    "allow_private_targets = true",
    `concurrency = ${CONCURRENCY}`,
  ]);
  const loaded = loadConfig(configPath);
  if (!loaded.ok) throw new Error(loaded.error);
  const ctx = await openContext(loaded.config, { env: {} });
  const daemons: Subprocess[] = [];
  try {
    const plan = await setPlan(ctx.db, ctx.clock, { name: "bench", slots: 1 });
    if (!plan.ok) throw new Error(plan.error);
    // Billing stays on (the default): every success also charges credits and counts usage.
    const made = await createAccount(ctx, { name: "bench", plan: "bench", credits: 1_000_000_000 });
    if (!made.ok) throw new Error(made.error);
    const accountId = made.account.id;
    const endpointId = await pointWebhook(ctx.db, accountId, hookUrl);
    await addWatch(ctx.db, { accountId, network: "eth", address: WATCHED, now: Date.now() });
    // BENCH_ACCOUNTS=n spreads the outbox over n accounts (same receiver), so that settling is not
    // serialized on one account's row (credits, daily usage) across daemons.
    const targets = [{ accountId, endpointId }];
    for (let i = 1; i < ACCOUNTS; i++) {
      const more = await createAccount(ctx, { name: `bench-${i}`, plan: "bench", credits: 1_000_000_000 });
      if (!more.ok) throw new Error(more.error);
      targets.push({ accountId: more.account.id, endpointId: await pointWebhook(ctx.db, more.account.id, hookUrl) });
    }

    // BENCH_PROFILE_DIR=<dir> writes a CPU profile (markdown) of each daemon there when it exits.
    const profile = process.env.BENCH_PROFILE_DIR ? ["--cpu-prof-md", `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : [];
    const started = await spawnDaemons(configPath, scenario.daemons, (p) => (daemons.push(p), env.track(p)), profile);
    const daemonUrls = started.map((d) => d.url);

    const bodies = Array.from({ length: TOTAL }, (_, i) => eventBody(i));
    const load = loadAverage();

    // --- Throughput: the daemons ---
    await fetch(`${base}/reset`);
    await ctx.db.transaction().execute(async (trx) => {
      const now = Date.now();
      for (const [i, body] of bodies.entries())
        await enqueueDelivery(trx, { ...targets[i % ACCOUNTS], kind: "event", eventType: "payment", network: "eth", body, nowMs: now });
    });
    // The outbox went from empty to 20,000 pending rows in one commit: until autovacuum analyzes
    // the table, PostgreSQL's planner thinks a couple of rows are pending (the claim no longer
    // sorts because of it: orderedClaimPlan; docs/benchmarks.md). Analyze as autovacuum would
    // given time, so the figures are the steady state; BENCH_PG_NO_ANALYZE=1 measures without.
    if (env.cluster && !process.env.BENCH_PG_NO_ANALYZE) await sql`analyze deliveries`.execute(ctx.db);
    const queuedAt = wallNow();
    const window = startCpuWindow({
      daemons: () => daemons.reduce((sum, d) => sum + cpuOf(d.pid), 0),
      ...(env.cluster ? { postgres: () => cpuOfTree(env.cluster!.pid) } : {}),
      receiver: () => cpuOf(env.receiver.pid),
    });
    // Queued from outside a daemon: on PostgreSQL tell them all, as a daemon that queued work
    // would, so every one starts claiming at once. On SQLite the daemon's next tick picks it up.
    if (env.cluster) {
      const bus = createWakeBus({ db: ctx.db, url: env.url, log: ctx.log });
      bus.notify("delivery");
      await Bun.sleep(50);
      await bus.close();
    }
    let stats: Stats = { count: 0, unique: 0, first: 0, last: 0 };
    const deadline = Date.now() + 120_000;
    while (stats.count < TOTAL) {
      if (Date.now() > deadline) throw new Error(`only ${stats.count} of ${TOTAL} deliveries arrived within 120 s`);
      await Bun.sleep(100);
      stats = (await (await fetch(`${base}/stats`)).json()) as Stats;
    }
    const cpu = window();
    const daemonRate = ((TOTAL - 1) / (stats.last - stats.first)) * 1000;
    const daemonWallMs = stats.last - queuedAt;
    const duplicates = stats.count - stats.unique;

    // --- Throughput: a raw fetch loop, same bodies, same concurrency, same receiver ---
    await fetch(`${base}/reset`);
    const rawWindow = startCpuWindow({ loop: () => cpuOf(process.pid), receiver: () => cpuOf(env.receiver.pid) });
    let next = 0;
    const worker = async () => {
      while (next < TOTAL) {
        const body = bodies[next++];
        const res = await fetch(hookUrl, { method: "POST", headers: { "Content-Type": "application/json" }, body });
        await res.text();
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    stats = (await (await fetch(`${base}/stats`)).json()) as Stats;
    const rawCpu = rawWindow();
    const rawRate = ((TOTAL - 1) / (stats.last - stats.first)) * 1000;

    // --- Throughput: the durable raw loop(s), same bodies, concurrency and receiver, one per daemon ---
    const durable = DURABLE ? await runDurableLoops(scenario, env, bodies, hookUrl) : null;

    // --- Latency: ingest → receipt, daemons idle, through the wake-up path (round-robin over daemons) ---
    await Bun.sleep(1500);
    const latencies: number[] = [];
    for (let i = 0; i < LATENCY_SAMPLES; i++) {
      const { tx, block } = payingBlock(20_000_000 + i, i, WATCHED);
      const t0 = wallNow();
      await postBlock(daemonUrls[i % daemonUrls.length], INGEST_TOKEN, block);
      const waitUntil = Date.now() + 30_000;
      for (;;) {
        const r = await fetch(`${base}/tx/${tx}`);
        if (r.status === 200) {
          latencies.push(((await r.json()) as { at: number }).at - t0);
          break;
        }
        if (Date.now() > waitUntil) throw new Error(`the webhook of block ${block.height} did not arrive within 30 s`);
        await Bun.sleep(1);
      }
      await Bun.sleep(10);
    }
    latencies.sort((a, b) => a - b);
    return { scenario, daemonRate, daemonWallMs, duplicates, rawRate, rawCpu, durable, p50: percentile(latencies, 50), p99: percentile(latencies, 99), cpu, load };
  } finally {
    await stopAll(daemons);
    await ctx.db.destroy();
  }
}

/** One line at a time from a subprocess's stdout. */
async function* linesOf(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buf = "";
  for await (const chunk of stream) {
    buf += decoder.decode(chunk, { stream: true });
    for (let i = buf.indexOf("\n"); i >= 0; i = buf.indexOf("\n")) {
      yield buf.slice(0, i);
      buf = buf.slice(i + 1);
    }
  }
}

/**
 * The durable raw loop baseline: one loop per daemon of the set-up (support/durable-loop.ts), over
 * a SQLite file of its own beside the daemon's or a fresh database on the same PostgreSQL cluster,
 * filled with the same bodies before the window opens. Measured from "go" to the last arrival.
 */
async function runDurableLoops(scenario: Scenario, env: ScenarioEnv, bodies: string[], hookUrl: string): Promise<DurableOutcome> {
  const bodiesFile = join(env.dir, "durable-bodies.json");
  writeFileSync(bodiesFile, JSON.stringify(bodies));
  const url = scenario.database === "sqlite" ? `sqlite://${env.dir}/durable.db` : await env.cluster!.createDatabase(`bench_durable_${basename(env.dir)}`);
  const loops = scenario.database === "sqlite" ? 1 : scenario.daemons;
  const script = join(import.meta.dir, "support/durable-loop.ts");
  const procs: Subprocess<"pipe", "pipe", "inherit">[] = [];
  const outputs: AsyncIterator<string>[] = [];
  try {
    for (let i = 0; i < loops; i++) {
      // The first fills the table; the others (PostgreSQL) use it as it is.
      const proc = Bun.spawn([process.execPath, script, url, hookUrl, i === 0 ? bodiesFile : "-", String(CONCURRENCY)], { stdin: "pipe", stdout: "pipe", stderr: "inherit" });
      procs.push(proc);
      env.track(proc);
      const out = linesOf(proc.stdout)[Symbol.asyncIterator]();
      outputs.push(out);
      const first = await out.next();
      if (first.done || !first.value.includes('"ready"')) throw new Error(`durable loop did not start: ${first.value ?? "exited"}`);
    }
    await fetch(`${env.base}/reset`);
    const window = startCpuWindow({
      loop: () => procs.reduce((sum, p) => sum + cpuOf(p.pid), 0),
      ...(env.cluster ? { postgres: () => cpuOfTree(env.cluster!.pid) } : {}),
      receiver: () => cpuOf(env.receiver.pid),
    });
    for (const p of procs) {
      p.stdin.write("go\n");
      p.stdin.flush();
    }
    let stats: Stats = { count: 0, unique: 0, first: 0, last: 0 };
    const deadline = Date.now() + 120_000;
    while (stats.unique < TOTAL) {
      if (Date.now() > deadline) throw new Error(`durable loop: only ${stats.unique} of ${TOTAL} deliveries arrived within 120 s`);
      await Bun.sleep(100);
      stats = (await (await fetch(`${env.base}/stats`)).json()) as Stats;
    }
    // Each loop prints its counts after its last commit and then waits, so its CPU is still in /proc.
    const counts = { sent: 0, failed: 0, commits: 0, claims: 0, commitMs: 0 };
    for (const out of outputs) {
      const last = await out.next();
      if (last.done) throw new Error("durable loop exited without its counts");
      const c = JSON.parse(last.value) as typeof counts;
      for (const k of Object.keys(counts) as (keyof typeof counts)[]) counts[k] += c[k];
    }
    const cpu = window();
    for (const p of procs) p.stdin.end();
    return { rate: ((TOTAL - 1) / (stats.last - stats.first)) * 1000, cpu, duplicates: stats.count - stats.unique, lost: TOTAL - stats.unique, loops, ...counts };
  } finally {
    await stopAll(procs);
  }
}

/** "daemon 223 = durable loop 120 + 103 of chainwatch's own; raw fetch loop 85". */
function describeFloor(daemonUs: number, durableUs: number, rawUs: number): string {
  return `daemon ${daemonUs} = durable loop ${durableUs} + ${daemonUs - durableUs} of chainwatch's own; durable loop = raw fetch loop ${rawUs} + ${durableUs - rawUs} for the outbox`;
}

/** The report of a plain `bun run bench:deliver` (docs/benchmarks.md quotes it): CPU per delivery first. */
function printSingle(o: Outcome): void {
  const ratio = o.daemonRate / o.rawRate;
  const per = cpuPerUnit(o.cpu, TOTAL);
  const raw = cpuPerUnit(o.rawCpu, TOTAL);
  const total = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);
  const list = (r: Record<string, number>) => Object.entries(r).map(([k, us]) => `${k} ${us}`).join(" + ");
  console.log(`deliveries:           ${TOTAL} (concurrency ${CONCURRENCY}, receiver answers 200 at once)`);
  const d = o.durable;
  const durableUs = d ? cpuPerUnit(d.cpu, TOTAL) : null;
  const durablePart = durableUs ? `; durable loop ${total(durableUs)} (${list(durableUs)})` : "";
  console.log(`CPU µs per delivery:  ${total(per)} (${list(per)})${durablePart}; raw fetch loop ${total(raw)} (${list(raw)})`);
  if (durableUs) console.log(`stack floor:          ${describeFloor(total(per), total(durableUs), total(raw))}`);
  console.log(`daemon throughput:    ${o.daemonRate.toFixed(0)} deliveries/s (first→last arrival; ${(o.daemonWallMs / 1000).toFixed(2)} s from commit incl. the next tick)`);
  if (d)
    console.log(
      `durable loop:         ${d.rate.toFixed(0)} deliveries/s, ${d.duplicates} duplicates, ${d.lost} lost, ${d.commits} commits (${(d.sent / Math.max(1, d.commits)).toFixed(1)} sends a commit, ${commitUs(d)} µs of wall time in commits per delivery), ${d.claims} claims`,
    );
  console.log(`raw fetch throughput: ${o.rawRate.toFixed(0)} requests/s`);
  console.log(`ratio daemon/raw:     ${ratio.toFixed(2)} (target >= 0.8) ${ratio >= 0.8 ? "OK" : "MISSED"}`);
  if (d) console.log(`ratio durable/raw:    ${(d.rate / o.rawRate).toFixed(2)} (the floor's own ratio); daemon/durable ${(o.daemonRate / d.rate).toFixed(2)}`);
  console.log(`ingest→receipt:       p50 ${o.p50.toFixed(1)} ms, p99 ${o.p99.toFixed(1)} ms over ${LATENCY_SAMPLES} blocks (target p99 < 100 ms) ${o.p99 < 100 ? "OK" : "MISSED"}`);
  console.log(`CPU (share of one core) while the daemon delivered: ${describeCpu(o.cpu, navigator.hardwareConcurrency)}; load average ${o.load}`);
  if (d) console.log(`CPU (share of one core) while the durable loop delivered: ${describeCpu(d.cpu, navigator.hardwareConcurrency)}`);
}

function printComparison(outcomes: Outcome[], run: { postgres: string; loadBefore: string; loadAfter: string }): void {
  const cores = navigator.hardwareConcurrency;
  console.log("");
  console.log(`deliveries: ${TOTAL} per set-up over ${ACCOUNTS} account(s), concurrency ${CONCURRENCY} per daemon, receiver answers 200 at once; PostgreSQL ${run.postgres} on this machine; ${cores} CPUs`);
  console.log(`load average: ${run.loadBefore} before, ${run.loadAfter} after`);
  console.log("");
  // CPU per delivery first: on shared cores it is the steady figure, throughput swings with the load.
  const head = ["set-up", "CPU µs/deliv", "durable µs", "raw loop µs", "deliveries/s", "durable/s", "raw fetch/s", "ratio", "dup", "p50 ms", "p99 ms", "CPU µs/delivery by process"];
  console.log(`${head[0].padEnd(16)} ${head.slice(1, 11).map((h) => h.padStart(12)).join(" ")}  ${head[11]}`);
  for (const o of outcomes) {
    const byRole = cpuPerUnit(o.cpu, TOTAL);
    const per = Object.entries(byRole).map(([k, us]) => `${k} ${us}`).join(", ");
    const sum = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);
    const durableUs = o.durable ? cpuPerUnit(o.durable.cpu, TOTAL) : null;
    const cells = [
      String(sum(byRole)),
      durableUs ? String(sum(durableUs)) : "-",
      String(sum(cpuPerUnit(o.rawCpu, TOTAL))),
      o.daemonRate.toFixed(0),
      o.durable ? o.durable.rate.toFixed(0) : "-",
      o.rawRate.toFixed(0),
      (o.daemonRate / o.rawRate).toFixed(2),
      String(o.duplicates),
      o.p50.toFixed(1),
      o.p99.toFixed(1),
    ];
    const durablePer = durableUs ? `; durable ${Object.entries(durableUs).map(([k, us]) => `${k} ${us}`).join(", ")}` : "";
    console.log(`${scenarioLabel(o.scenario).padEnd(16)} ${cells.map((c) => c.padStart(12)).join(" ")}  ${per}${durablePer}`);
  }
  console.log("");
  for (const o of outcomes) {
    const d = o.durable;
    if (!d) continue;
    console.log(
      `durable loop, ${scenarioLabel(o.scenario)}: ${d.loops} loop(s), ${d.duplicates} duplicates, ${d.lost} lost, ${d.commits} commits (${(d.sent / Math.max(1, d.commits)).toFixed(1)} sends a commit, ${commitUs(d)} µs of wall time in commits per delivery), ${d.claims} claims`,
    );
  }
  for (const o of outcomes) console.log(`CPU while ${scenarioLabel(o.scenario)} delivered (share of one core): ${describeCpu(o.cpu, cores)}; load average ${o.load}`);
  console.log(
    JSON.stringify({
      bench: "deliver",
      deliveries: TOTAL,
      accounts: ACCOUNTS,
      concurrency: CONCURRENCY,
      postgres: run.postgres,
      load_before: run.loadBefore,
      load_after: run.loadAfter,
      setups: outcomes.map((o) => ({
        database: o.scenario.database,
        daemons: o.scenario.daemons,
        deliveries_per_s: Math.round(o.daemonRate),
        raw_per_s: Math.round(o.rawRate),
        ratio: Number((o.daemonRate / o.rawRate).toFixed(3)),
        duplicates: o.duplicates,
        p50_ms: Number(o.p50.toFixed(1)),
        p99_ms: Number(o.p99.toFixed(1)),
        cpu_us_per_delivery: cpuPerUnit(o.cpu, TOTAL),
        raw_cpu_us_per_delivery: cpuPerUnit(o.rawCpu, TOTAL),
        durable: o.durable && durableJson(o.durable),
      })),
    }),
  );
}

/** Wall µs inside the durable loops' commits per delivery. */
function commitUs(d: DurableOutcome): number {
  return Math.round((d.commitMs * 1000) / TOTAL);
}

function durableJson(d: DurableOutcome) {
  return {
    per_s: Math.round(d.rate),
    cpu_us_per_delivery: cpuPerUnit(d.cpu, TOTAL),
    loops: d.loops,
    duplicates: d.duplicates,
    lost: d.lost,
    commits: d.commits,
    claims: d.claims,
    commit_wall_us_per_delivery: commitUs(d),
    failed: d.failed,
  };
}

function printRecovery(outcomes: RecoveryOutcome[], run: { postgres: string; loadBefore: string; loadAfter: string }): void {
  const cores = navigator.hardwareConcurrency;
  const limit = RECOVERY_MAX_RPS === 0 ? "no rate limit" : `max_rps ${RECOVERY_MAX_RPS}`;
  console.log(`recovery: ${RECOVERED} failed deliveries of one account (${limit}) recovered 10,000 a call and drained, concurrency ${CONCURRENCY} per daemon;`);
  console.log(`another account's address paid by one ingested block every 100 ms meanwhile${run.postgres ? `; PostgreSQL ${run.postgres}` : ""}; ${cores} CPUs`);
  console.log(`load average: ${run.loadBefore} before, ${run.loadAfter} after`);
  for (const o of outcomes) {
    const per = Object.entries(cpuPerUnit(o.cpu, o.deliveries)).map(([k, us]) => `${k} ${us}`).join(", ");
    console.log("");
    console.log(`${scenarioLabel(o.scenario)}:`);
    console.log(`  re-queued:           ${RECOVERED} in ${o.calls} calls, ${(o.requeueMs / 1000).toFixed(2)} s`);
    console.log(`  drained:             ${(o.drainMs / 1000).toFixed(2)} s from the first call to the last arrival (${((RECOVERED / o.drainMs) * 1000).toFixed(0)} deliveries/s), ${o.duplicates} duplicates`);
    console.log(`  other account:       ingest→receipt p50 ${o.p50.toFixed(1)} ms, p99 ${o.p99.toFixed(1)} ms over ${o.live} blocks during the drain (target p99 < 100 ms) ${o.p99 < 100 ? "OK" : "MISSED"}`);
    console.log(`  slowest:             ${o.slowest.map((w) => `${w.ms.toFixed(0)} ms (block at ${(w.sinceStart / 1000).toFixed(1)} s)`).join(", ")}`);
    console.log(`  CPU µs per delivery: ${per} (${o.deliveries} deliveries, the other account's and its ingests included)`);
    console.log(`  CPU (share of one core): ${describeCpu(o.cpu, cores)}`);
  }
  console.log(
    JSON.stringify({
      bench: "deliver-recovery",
      recovered: RECOVERED,
      max_rps: RECOVERY_MAX_RPS,
      concurrency: CONCURRENCY,
      postgres: run.postgres,
      load_before: run.loadBefore,
      load_after: run.loadAfter,
      setups: outcomes.map((o) => ({
        database: o.scenario.database,
        daemons: o.scenario.daemons,
        drain_s: Number((o.drainMs / 1000).toFixed(2)),
        requeue_s: Number((o.requeueMs / 1000).toFixed(2)),
        duplicates: o.duplicates,
        live_blocks: o.live,
        p50_ms: Number(o.p50.toFixed(1)),
        p99_ms: Number(o.p99.toFixed(1)),
        cpu_us_per_delivery: cpuPerUnit(o.cpu, o.deliveries),
      })),
    }),
  );
}

function printReplay(outcomes: ReplayOutcome[], run: { postgres: string; loadBefore: string; loadAfter: string }): void {
  const cores = navigator.hardwareConcurrency;
  console.log(
    `replay: one account with ${STORED} stored events calls POST /v1/address-watch/events/replay {"since":0} ${REPLAY_CALLS} times, one every ${REPLAY_EVERY_MS} ms (delivery.max_replay_pending 10,000), concurrency ${CONCURRENCY} per daemon;`,
  );
  console.log(`another account's address paid by one ingested block every 100 ms meanwhile${run.postgres ? `; PostgreSQL ${run.postgres}` : ""}; ${cores} CPUs`);
  console.log(`load average: ${run.loadBefore} before, ${run.loadAfter} after`);
  for (const o of outcomes) {
    const per = Object.entries(cpuPerUnit(o.cpu, o.deliveries)).map(([k, us]) => `${k} ${us}`).join(", ");
    console.log("");
    console.log(`${scenarioLabel(o.scenario)}:`);
    console.log(`  calls answered:      ${Object.entries(o.answers).map(([status, n]) => `${n} × ${status}`).join(", ")} in ${(o.floodMs / 1000).toFixed(1)} s; ${o.queued} replayed deliveries queued in all`);
    console.log(`  replay backlog:      at most ${o.maxWaiting} waiting at once; drained ${(o.drainMs / 1000).toFixed(2)} s after the first call; database ${(o.databaseBytes / 1048576).toFixed(1)} MiB after`);
    console.log(`  other account:       ingest→receipt p50 ${o.p50.toFixed(1)} ms, p99 ${o.p99.toFixed(1)} ms over ${o.live} blocks while replays were outstanding (target p99 < 100 ms) ${o.p99 < 100 ? "OK" : "MISSED"}`);
    console.log(`  slowest:             ${o.slowest.map((w) => `${w.ms.toFixed(0)} ms (block at ${(w.sinceStart / 1000).toFixed(1)} s)`).join(", ")}`);
    console.log(`  other account alone: p50 ${o.alone.p50.toFixed(1)} ms, p99 ${o.alone.p99.toFixed(1)} ms over ${o.alone.blocks} blocks in the 5 s before the first call`);
    console.log(`  CPU µs per delivery: ${per} (${o.deliveries} deliveries, the other account's and its ingests included)`);
    console.log(`  CPU (share of one core): ${describeCpu(o.cpu, cores)}`);
  }
  console.log(
    JSON.stringify({
      bench: "deliver-replay",
      stored: STORED,
      calls: REPLAY_CALLS,
      every_ms: REPLAY_EVERY_MS,
      concurrency: CONCURRENCY,
      postgres: run.postgres,
      load_before: run.loadBefore,
      load_after: run.loadAfter,
      setups: outcomes.map((o) => ({
        database: o.scenario.database,
        daemons: o.scenario.daemons,
        answers: o.answers,
        queued: o.queued,
        max_waiting: o.maxWaiting,
        drain_s: Number((o.drainMs / 1000).toFixed(2)),
        database_mib: Number((o.databaseBytes / 1048576).toFixed(1)),
        live_blocks: o.live,
        p50_ms: Number(o.p50.toFixed(1)),
        p99_ms: Number(o.p99.toFixed(1)),
        alone_p50_ms: Number(o.alone.p50.toFixed(1)),
        alone_p99_ms: Number(o.alone.p99.toFixed(1)),
        cpu_us_per_delivery: cpuPerUnit(o.cpu, o.deliveries),
      })),
    }),
  );
}
