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
// against raw loop is the floor a durable outbox costs (BENCH_DURABLE=0 skips it). On SQLite a
// second baseline, the contract loop (support/contract-loop.ts): the durable loop plus the least
// the delivery contract asks of any implementation (the signed headers, an attempt row each, the
// charge and the usage count), so that daemon against contract loop is what is chainwatch's own
// choice, and contract loop against durable loop the contract's own price (BENCH_CONTRACT=0 skips it).
// The same contract loop also runs over copies of chainwatch's own outbox tables (every index,
// the text keys): what the outbox's shape costs that least implementation.
//
// BENCH_RECOVERY=1 runs, for the same set-ups, the recovery run instead: 50,000 failed deliveries of
// one account recovered and drained while another account's webhooks are timed (deliver-recovery.ts).
// BENCH_REPLAY=1 runs the replay run instead: one account floods the events replay (70 calls in
// 28 s, capped by delivery.max_replay_pending) while another account's webhooks are timed
// (deliver-replay.ts; BENCH_REPLAY_CALLS and BENCH_REPLAY_EVERY_MS change the flood).
// Rounds: the throughput run goes BENCH_ROUNDS times (5) round every set-up in turn — its daemons,
// its durable loop, its raw loop — with every set-up's daemons running from the start, so a spell of
// load on the shared machine falls on each alike; it prints each round's line, then medians and
// spread (min–max), and its last line says whether the targets were reached (CPU per delivery on
// SQLite <= 1.3× the durable loop's; one daemon on PostgreSQL >= 0.6 of the SQLite daemon's
// deliveries/s) and, when not, the figure, the target and why. BENCH_BEFORE=<checkout> (another
// source tree sharing this one's node_modules, e.g. `git archive REV | tar -x -C /tmp/t && ln -s
// $PWD/node_modules /tmp/t/`) adds that tree's daemons to every round, each over its own database:
// before and after measured interleaved in one run, the trees taking turns going first in a
// round. Latency is measured once, after the rounds.
// Sizes (env): BENCH_DELIVERIES (20,000 queued a round), BENCH_LATENCY_SAMPLES (200 blocks), BENCH_ACCOUNTS (1).
import type { Subprocess } from "bun";
import { payingBlock, postBlock } from "./support/paying-block.ts";
import { sql } from "kysely";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAccount } from "../src/accounts/accounts.ts";
import { setPlan } from "../src/accounts/plans.ts";
import { loadConfig } from "../src/config/load.ts";
import { openContext } from "../src/daemon.ts";
import { createWakeBus } from "../src/db/wake-bus.ts";
import { enqueueDelivery } from "../src/delivery/outbox.ts";
import { addWatch } from "../src/watch/watches.ts";
import {
  cpuOf,
  cpuOfTree,
  type CpuWindow,
  cpuPerUnit,
  describeCpu,
  loadAverage,
  startCpuWindow,
  sumThreadKinds,
  type ThreadKinds,
  threadKindsSince,
  threadRunTimes,
} from "./support/cpu.ts";
import { killOnInterrupt, onInterrupt } from "./support/interrupt.ts";
import { firstLine, spawnDaemons, stopAll, writeDaemonConfig } from "./support/daemons.ts";
import { type BenchCluster, serverVersion, startCluster } from "./support/postgres.ts";
import { type Scenario, scenarioLabel, scenariosFromArgv } from "./support/scenarios.ts";
import { RECOVERED, type RecoveryOutcome, runRecovery } from "./deliver-recovery.ts";
import { type ReplayOutcome, runReplay, STORED } from "./deliver-replay.ts";
import { pointWebhook } from "./support/endpoint.ts";
import { median, spread } from "./support/rounds.ts";

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
/** The contract loop baseline on SQLite (support/contract-loop.ts); BENCH_CONTRACT=0 leaves it out. */
const CONTRACT = DURABLE && process.env.BENCH_CONTRACT !== "0";
/** Rounds of the throughput run: each set-up's daemons, the durable loop and the raw loop in turn, every round. */
const ROUNDS = positiveIntFromEnv("BENCH_ROUNDS", 5);
/** BENCH_BEFORE=<checkout>: another source tree (sharing this one's node_modules) whose daemons run in the same rounds. */
const BEFORE = process.env.BENCH_BEFORE || undefined;
/** The target of a delivery on SQLite: CPU µs per delivery (every process) at most this many times the durable loop's. */
const SQLITE_TARGET = 1.3;
/** The target on PostgreSQL: one daemon's deliveries/s at least this share of the SQLite daemon's, in the same round. */
const POSTGRES_TARGET = 0.6;
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

/** One daemon set-up's delivery of the queued outbox in one round. */
type DaemonRun = {
  rate: number;
  /** From the outbox's commit to the last arrival, incl. the wait for the daemons' next tick (SQLite). */
  wallMs: number;
  duplicates: number;
  cpu: CpuWindow;
  /** The daemons' threads over the window, by kind, summed over the set-up's daemons (µs). */
  threads: ThreadKinds;
  load: string;
};

/** The raw fetch loop of one round: its rate, and the CPU of this process and the receiver while it ran. */
type RawRun = { rate: number; cpu: CpuWindow };

/** Whose daemon a set-up runs: this tree's, or the tree in BENCH_BEFORE (a before/after comparison in one run). */
type Tree = { label: string; path: string | undefined };

/** A set-up's rounds: the daemons' runs (each tree's), the durable loop's and the raw loop's, and the latency of this tree's daemons. */
type ScenarioRounds = {
  scenario: Scenario;
  daemon: Map<string, DaemonRun[]>;
  durable: DurableOutcome[];
  /** The contract loop's runs (SQLite set-ups only). */
  contract: DurableOutcome[];
  /** The contract loop's runs over copies of the outbox's tables (SQLite set-ups only). */
  outbox: DurableOutcome[];
  raw: RawRun[];
  p50: number;
  p99: number;
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

    const trees: Tree[] = [{ label: "daemon", path: undefined }, ...(BEFORE ? [{ label: "before", path: BEFORE }] : [])];
    const bodies = Array.from({ length: TOTAL }, (_, i) => eventBody(i));
    const hookUrl = `${base}/hook`;
    // Every set-up's daemons run from the start: the rounds go round them in turn, so a spell of
    // load on the machine falls on each alike. Between its turns a daemon idles on its own database.
    const setups: Setup[] = [];
    try {
      for (const [i, scenario] of scenarios.entries()) {
        for (const [j, tree] of trees.entries()) {
          const sub = join(dir, `s${i}-${j}`);
          mkdirSync(sub);
          const url = scenario.database === "sqlite" ? `sqlite://${sub}/cw.db` : await cluster!.createDatabase(`bench_deliver_${i}_${j}`);
          setups.push(await startSetup(scenario, tree, { dir: sub, url, base, receiver, cluster, track: (p) => children.push(p) }));
        }
      }
      const results: ScenarioRounds[] = scenarios.map((scenario) => ({ scenario, daemon: new Map(trees.map((t) => [t.label, []])), durable: [], contract: [], outbox: [], raw: [], p50: 0, p99: 0 }));
      for (let round = 1; round <= ROUNDS; round++) {
        const line: string[] = [];
        for (const [i, r] of results.entries()) {
          // With BENCH_BEFORE the trees take turns going first: on PostgreSQL the tree that ran
          // second in a round delivered 7–12 % faster, whichever it was (docs/benchmarks.md).
          const own = setups.filter((x) => x.scenario === r.scenario);
          for (const s of round % 2 === 0 ? own.reverse() : own) {
            const run = await s.deliver(bodies);
            r.daemon.get(s.tree.label)!.push(run);
            line.push(`${s.tree.label === "daemon" ? "" : `${s.tree.label} `}${scenarioLabel(r.scenario)} ${totalUs(run.cpu)} µs ${byThread(run.threads)} ${run.rate.toFixed(0)}/s`);
          }
          const env = setups.find((x) => x.scenario === r.scenario)!.env;
          if (DURABLE) {
            const d = await runDurableLoops(r.scenario, env, bodies, hookUrl, `${i}_${round}`);
            r.durable.push(d);
            line.push(`durable ${totalUs(d.cpu)} µs ${byThread(d.threads)} ${d.rate.toFixed(0)}/s`);
          }
          if (CONTRACT && r.scenario.database === "sqlite") {
            const c = await runDurableLoops(r.scenario, env, bodies, hookUrl, `c${i}_${round}`, "contract");
            r.contract.push(c);
            line.push(`contract ${totalUs(c.cpu)} µs ${byThread(c.threads)} ${c.rate.toFixed(0)}/s`);
            const o = await runDurableLoops(r.scenario, env, bodies, hookUrl, `o${i}_${round}`, "contract-outbox");
            r.outbox.push(o);
            line.push(`contract over the outbox ${totalUs(o.cpu)} µs ${byThread(o.threads)} ${o.rate.toFixed(0)}/s`);
          }
          const raw = await runRawLoop(env, bodies, hookUrl);
          r.raw.push(raw);
          line.push(`raw ${totalUs(raw.cpu)} µs ${raw.rate.toFixed(0)}/s`);
        }
        console.log(`round ${round}/${ROUNDS} (load ${loadAverage()}): ${line.join(", ")}`);
      }
      // Latency: ingest → receipt, daemons idle, through the wake-up path; this tree's daemons only.
      for (const r of results) {
        const s = setups.find((x) => x.scenario === r.scenario && x.tree.path === undefined)!;
        Object.assign(r, await s.latency());
      }
      const version = cluster ? await serverVersion(cluster.url) : "";
      if (!compare) printSingle(results[0], trees);
      else printComparison(results, trees, { postgres: version, loadBefore, loadAfter: loadAverage() });
      console.log(verdict(results, compare));
    } finally {
      for (const s of setups) await s.stop();
    }
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
  /** The loops' threads over the window, by kind, summed over the loops (µs). */
  threads: ThreadKinds;
};

type ScenarioEnv = { dir: string; url: string; base: string; receiver: Subprocess; cluster: BenchCluster | undefined; track: (p: Subprocess) => void };

/** A set-up ready for its rounds: its own database, account and running daemons. */
type Setup = {
  scenario: Scenario;
  tree: Tree;
  env: ScenarioEnv;
  /** Queues `bodies` in one commit and measures the daemons until the last one arrived. */
  deliver(bodies: string[]): Promise<DaemonRun>;
  latency(): Promise<{ p50: number; p99: number }>;
  stop(): Promise<void>;
};

/** Sets up one set-up's database (account, endpoint, watch) and starts its daemons (`tree`'s CLI). */
async function startSetup(scenario: Scenario, tree: Tree, env: ScenarioEnv): Promise<Setup> {
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
  // Another tree's database is migrated by that tree's own code: its daemons refuse a schema
  // migrated further than they know (a before tree older than an index this one adds).
  const open: typeof openContext = tree.path ? (await import(join(tree.path, "src/daemon.ts"))).openContext : openContext;
  const ctx = await open(loaded.config, { env: {} });
  const daemons: Subprocess[] = [];
  const stop = async () => {
    await stopAll(daemons);
    await ctx.db.destroy();
  };
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

    // BENCH_PROFILE_DIR=<dir> writes a CPU profile (markdown) of each daemon there when it exits;
    // BENCH_DAEMON_ARGS adds any other arguments to the daemons' `bun` (e.g. "--cpu-prof --cpu-prof-dir=/tmp/p").
    const profile = [
      ...(process.env.BENCH_PROFILE_DIR ? ["--cpu-prof-md", `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : []),
      ...(process.env.BENCH_DAEMON_ARGS ?? "").split(" ").filter(Boolean),
    ];
    const started = await spawnDaemons(configPath, scenario.daemons, (p) => (daemons.push(p), env.track(p)), profile, tree.path);
    const daemonUrls = started.map((d) => d.url);
    let blocks = 0;
    return {
      scenario,
      tree,
      env,
      stop,
      async deliver(bodies) {
        const load = loadAverage();
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
        if (scenario.database === "postgres" && !process.env.BENCH_PG_NO_ANALYZE) await sql`analyze deliveries`.execute(ctx.db);
        const queuedAt = wallNow();
        const threadsBefore = daemons.map((d) => threadRunTimes(d.pid));
        const window = startCpuWindow({
          daemons: () => daemons.reduce((sum, d) => sum + cpuOf(d.pid), 0),
          ...(scenario.database === "postgres" ? { postgres: () => cpuOfTree(env.cluster!.pid) } : {}),
          receiver: () => cpuOf(env.receiver.pid),
        });
        // Queued from outside a daemon: on PostgreSQL tell them all, as a daemon that queued work
        // would, so every one starts claiming at once. On SQLite the daemon's next tick picks it up.
        if (scenario.database === "postgres") {
          const bus = createWakeBus({ db: ctx.db, url: env.url, log: ctx.log });
          bus.notify("delivery");
          await Bun.sleep(50);
          await bus.close();
        }
        const stats = await waitForArrivals(base, bodies.length, (s) => s.count, "deliveries");
        const cpu = window();
        const threads = sumThreadKinds(daemons.map((d, k) => threadKindsSince(d.pid, threadsBefore[k])));
        return { rate: ((bodies.length - 1) / (stats.last - stats.first)) * 1000, wallMs: stats.last - queuedAt, duplicates: stats.count - stats.unique, cpu, threads, load };
      },
      async latency() {
        // Ingest → receipt, daemons idle, through the wake-up path (round-robin over daemons). Every
        // set-up pays the same blocks: the receiver forgets the last set-up's arrivals first.
        await Bun.sleep(1500);
        await fetch(`${base}/reset`);
        const latencies: number[] = [];
        for (let i = 0; i < LATENCY_SAMPLES; i++) {
          const { tx, block } = payingBlock(20_000_000 + blocks, blocks, WATCHED);
          blocks++;
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
        return { p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
      },
    };
  } catch (e) {
    await stop();
    throw e;
  }
}

/** Polls the receiver until `count(stats)` reaches `total` (bounded to 120 s). */
async function waitForArrivals(base: string, total: number, count: (s: Stats) => number, what: string): Promise<Stats> {
  let stats: Stats = { count: 0, unique: 0, first: 0, last: 0 };
  const deadline = Date.now() + 120_000;
  while (count(stats) < total) {
    if (Date.now() > deadline) throw new Error(`${what}: only ${count(stats)} of ${total} arrived within 120 s`);
    await Bun.sleep(100);
    stats = (await (await fetch(`${base}/stats`)).json()) as Stats;
  }
  return stats;
}

/** The raw fetch loop: the same bodies with the same concurrency to the same receiver, from this process. */
async function runRawLoop(env: ScenarioEnv, bodies: string[], hookUrl: string): Promise<RawRun> {
  await fetch(`${env.base}/reset`);
  const window = startCpuWindow({ loop: () => cpuOf(process.pid), receiver: () => cpuOf(env.receiver.pid) });
  let next = 0;
  const worker = async () => {
    while (next < bodies.length) {
      const body = bodies[next++];
      const res = await fetch(hookUrl, { method: "POST", headers: { "Content-Type": "application/json" }, body });
      await res.text();
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const stats = (await (await fetch(`${env.base}/stats`)).json()) as Stats;
  const cpu = window();
  return { rate: ((bodies.length - 1) / (stats.last - stats.first)) * 1000, cpu };
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
 * `kind` "contract": the contract loop instead (support/contract-loop.ts, SQLite only); "contract-outbox":
 * the contract loop over copies of the outbox tables of the set-up's daemon database.
 */
async function runDurableLoops(scenario: Scenario, env: ScenarioEnv, bodies: string[], hookUrl: string, tag: string, kind: "durable" | "contract" | "contract-outbox" = "durable"): Promise<DurableOutcome> {
  const bodiesFile = join(env.dir, "durable-bodies.json");
  writeFileSync(bodiesFile, JSON.stringify(bodies));
  // A fresh table each round, as the daemon gets a fresh batch in its outbox.
  const url = scenario.database === "sqlite" ? `sqlite://${env.dir}/durable-${tag}.db` : await env.cluster!.createDatabase(`bench_durable_${tag}`);
  const loops = scenario.database === "sqlite" ? 1 : scenario.daemons;
  const script = join(import.meta.dir, kind === "durable" ? "support/durable-loop.ts" : "support/contract-loop.ts");
  const outboxOf = kind === "contract-outbox" ? [env.url.slice("sqlite://".length)] : [];
  const procs: Subprocess<"pipe", "pipe", "inherit">[] = [];
  const outputs: AsyncIterator<string>[] = [];
  try {
    for (let i = 0; i < loops; i++) {
      // The first fills the table; the others (PostgreSQL) use it as it is.
      const proc = Bun.spawn([process.execPath, script, url, hookUrl, i === 0 ? bodiesFile : "-", String(CONCURRENCY), ...outboxOf], { stdin: "pipe", stdout: "pipe", stderr: "inherit" });
      procs.push(proc);
      env.track(proc);
      const out = linesOf(proc.stdout)[Symbol.asyncIterator]();
      outputs.push(out);
      const first = await out.next();
      if (first.done || !first.value.includes('"ready"')) throw new Error(`${kind} loop did not start: ${first.value ?? "exited"}`);
    }
    await fetch(`${env.base}/reset`);
    const threadsBefore = procs.map((p) => threadRunTimes(p.pid));
    const window = startCpuWindow({
      loop: () => procs.reduce((sum, p) => sum + cpuOf(p.pid), 0),
      ...(scenario.database === "postgres" ? { postgres: () => cpuOfTree(env.cluster!.pid) } : {}),
      receiver: () => cpuOf(env.receiver.pid),
    });
    for (const p of procs) {
      p.stdin.write("go\n");
      p.stdin.flush();
    }
    let stats: Stats = { count: 0, unique: 0, first: 0, last: 0 };
    const deadline = Date.now() + 120_000;
    while (stats.unique < TOTAL) {
      if (Date.now() > deadline) throw new Error(`${kind} loop: only ${stats.unique} of ${TOTAL} deliveries arrived within 120 s`);
      await Bun.sleep(100);
      stats = (await (await fetch(`${env.base}/stats`)).json()) as Stats;
    }
    // Each loop prints its counts after its last commit and then waits, so its CPU is still in /proc.
    const counts = { sent: 0, failed: 0, commits: 0, claims: 0, commitMs: 0 };
    for (const out of outputs) {
      const last = await out.next();
      if (last.done) throw new Error(`${kind} loop exited without its counts`);
      const c = JSON.parse(last.value) as typeof counts;
      for (const k of Object.keys(counts) as (keyof typeof counts)[]) counts[k] += c[k];
    }
    const cpu = window();
    const threads = sumThreadKinds(procs.map((p, k) => threadKindsSince(p.pid, threadsBefore[k])));
    for (const p of procs) p.stdin.end();
    return { rate: ((TOTAL - 1) / (stats.last - stats.first)) * 1000, cpu, threads, duplicates: stats.count - stats.unique, lost: TOTAL - stats.unique, loops, ...counts };
  } finally {
    await stopAll(procs);
  }
}

/** A process's CPU µs per delivery by thread, as a round's line shows it: its JavaScript thread, JIT, collector and the rest. */
function byThread(t: ThreadKinds): string {
  const per = (us: number) => Math.round(us / TOTAL);
  return `(JS ${per(t.js)}, JIT ${per(t.jit)}, GC ${per(t.gc)}, other ${per(t.other)})`;
}

/** Each thread kind's median over the rounds. */
function medianThreads(all: ThreadKinds[]): ThreadKinds {
  const out = { total: 0, js: 0, jit: 0, gc: 0, other: 0 };
  for (const k of Object.keys(out) as (keyof ThreadKinds)[]) out[k] = median(all.map((t) => t[k]));
  return out;
}

/** CPU µs per delivery of every process in a window. */
function totalUs(w: CpuWindow): number {
  return Object.values(cpuPerUnit(w, TOTAL)).reduce((a, b) => a + b, 0);
}

/** The rounds' windows as one: each role's and the machine's CPU and the wall time, medians over the rounds. */
function medianWindow(ws: CpuWindow[]): CpuWindow {
  const roles = Object.keys(ws[0].byRole);
  return {
    wallMs: median(ws.map((w) => w.wallMs)),
    byRole: Object.fromEntries(roles.map((k) => [k, median(ws.map((w) => w.byRole[k]))])),
    machineBusy: median(ws.map((w) => w.machineBusy)),
    machineTotal: median(ws.map((w) => w.machineTotal)),
  };
}

/** "daemons 104 + receiver 26": each role's median µs per delivery. */
function roles(ws: CpuWindow[]): string {
  return Object.entries(cpuPerUnit(medianWindow(ws), TOTAL))
    .map(([k, us]) => `${k} ${us}`)
    .join(" + ");
}

/** "daemon 223 = durable loop 120 + 103 of chainwatch's own; raw fetch loop 85". */
function describeFloor(daemonUs: number, durableUs: number, rawUs: number): string {
  return `daemon ${daemonUs} = durable loop ${durableUs} + ${daemonUs - durableUs} of chainwatch's own; durable loop = raw fetch loop ${rawUs} + ${durableUs - rawUs} for the outbox`;
}

/** "contract loop 82 = durable loop 64 + 18 for the contract (1.28×); daemon 99 = contract loop + 17 of chainwatch's own (1.21×)": medians over the rounds. */
function describeContract(r: ScenarioRounds): string {
  const daemonUs = Math.round(median(r.daemon.get("daemon")!.map((x) => totalUs(x.cpu))));
  const durableUs = Math.round(median(r.durable.map((d) => totalUs(d.cpu))));
  const contractUs = Math.round(median(r.contract.map((c) => totalUs(c.cpu))));
  return `contract loop ${contractUs} = durable loop ${durableUs} + ${contractUs - durableUs} for the contract's signed headers, attempt log and charge (${(contractUs / durableUs).toFixed(2)}×); daemon ${daemonUs} = contract loop + ${daemonUs - contractUs} of chainwatch's own (${(daemonUs / contractUs).toFixed(2)}×)`;
}

/**
 * "contract loop over the outbox 95 = contract loop 82 + 13 for the outbox's tables (1.16×), 1.48× the durable loop; daemon 120 = it + 25 (1.26×)":
 * medians over the rounds.
 */
function describeOutbox(r: ScenarioRounds): string {
  const us = (xs: DurableOutcome[]) => Math.round(median(xs.map((x) => totalUs(x.cpu))));
  const daemonUs = Math.round(median(r.daemon.get("daemon")!.map((x) => totalUs(x.cpu))));
  const [outboxUs, contractUs] = [us(r.outbox), us(r.contract)];
  const toDurable = median(r.outbox.map((o, i) => totalUs(o.cpu) / totalUs(r.durable[i].cpu)));
  const plus = (d: number) => (d < 0 ? `− ${-d}` : `+ ${d}`);
  return `contract loop over the outbox's tables ${outboxUs} = contract loop ${contractUs} ${plus(outboxUs - contractUs)} for the outbox's indexes, rows and keys (${(outboxUs / contractUs).toFixed(2)}×), ${toDurable.toFixed(2)}× the durable loop; daemon ${daemonUs} = it ${plus(daemonUs - outboxUs)} (${(daemonUs / outboxUs).toFixed(2)}×)`;
}

/** The report of a plain `bun run bench:deliver` (docs/benchmarks.md quotes it): CPU per delivery first, medians over the rounds. */
function printSingle(r: ScenarioRounds, trees: Tree[]): void {
  const runs = r.daemon.get("daemon")!;
  const cpu = (ws: CpuWindow[]) => spread(ws.map(totalUs));
  console.log(`deliveries:           ${TOTAL} a round, ${ROUNDS} round(s) (concurrency ${CONCURRENCY}, receiver answers 200 at once); median (min–max) over the rounds`);
  const durablePart = r.durable.length > 0 ? `; durable loop ${cpu(r.durable.map((d) => d.cpu))} (${roles(r.durable.map((d) => d.cpu))})` : "";
  const contractPart = r.contract.length > 0 ? `; contract loop ${cpu(r.contract.map((d) => d.cpu))} (${roles(r.contract.map((d) => d.cpu))})` : "";
  console.log(
    `CPU µs per delivery:  ${cpu(runs.map((x) => x.cpu))} (${roles(runs.map((x) => x.cpu))})${durablePart}${contractPart}; raw fetch loop ${cpu(r.raw.map((x) => x.cpu))} (${roles(r.raw.map((x) => x.cpu))})`,
  );
  for (const t of trees.slice(1)) {
    const other = r.daemon.get(t.label)!;
    console.log(`${`${t.label} (${t.path}):`.padEnd(21)} ${cpu(other.map((x) => x.cpu))} (${roles(other.map((x) => x.cpu))}), ${spread(other.map((x) => x.rate))} deliveries/s`);
  }
  const daemonUs = Math.round(median(runs.map((x) => totalUs(x.cpu))));
  const rawUs = Math.round(median(r.raw.map((x) => totalUs(x.cpu))));
  if (r.durable.length > 0) console.log(`stack floor:          ${describeFloor(daemonUs, Math.round(median(r.durable.map((d) => totalUs(d.cpu)))), rawUs)}`);
  if (r.contract.length > 0) console.log(`contract floor:       ${describeContract(r)}`);
  if (r.outbox.length > 0) console.log(`over the outbox:      ${describeOutbox(r)}`);
  const loops: [string, { threads: ThreadKinds }[]][] = [["durable loop", r.durable], ["contract loop", r.contract], ["over the outbox", r.outbox]];
  const threadParts = [`daemon ${byThread(medianThreads(runs.map((x) => x.threads)))}`, ...loops.filter(([, l]) => l.length > 0).map(([name, l]) => `${name} ${byThread(medianThreads(l.map((x) => x.threads)))}`)];
  console.log(`by thread (µs):       ${threadParts.join(", ")}`);
  const wall = median(runs.map((x) => x.wallMs));
  console.log(`daemon throughput:    ${median(runs.map((x) => x.rate)).toFixed(0)} deliveries/s (${spread(runs.map((x) => x.rate))}; first→last arrival; ${(wall / 1000).toFixed(2)} s from commit incl. the next tick)`);
  if (r.durable.length > 0) console.log(`durable loop:         ${spread(r.durable.map((x) => x.rate))} deliveries/s, ${loopCounts(r.durable)}`);
  console.log(`raw fetch throughput: ${spread(r.raw.map((x) => x.rate))} requests/s`);
  const ratios = runs.map((x, i) => x.rate / r.raw[i].rate);
  console.log(`ratio daemon/raw:     ${spread(ratios, 2)} (target >= 0.8) ${median(ratios) >= 0.8 ? "OK" : "MISSED"}`);
  if (r.durable.length > 0) {
    console.log(`ratio durable/raw:    ${spread(r.durable.map((d, i) => d.rate / r.raw[i].rate), 2)} (the floor's own ratio); daemon/durable ${spread(runs.map((x, i) => x.rate / r.durable[i].rate), 2)}`);
    console.log(`CPU daemon/durable:   ${spread(runs.map((x, i) => totalUs(x.cpu) / totalUs(r.durable[i].cpu)), 2)} (target <= ${SQLITE_TARGET})`);
  }
  if (r.contract.length > 0) {
    console.log(`CPU contract/durable: ${spread(r.contract.map((c, i) => totalUs(c.cpu) / totalUs(r.durable[i].cpu)), 2)} (what the contract costs the least implementation)`);
    console.log(`CPU daemon/contract:  ${spread(runs.map((x, i) => totalUs(x.cpu) / totalUs(r.contract[i].cpu)), 2)}`);
    console.log(`contract loop:        ${spread(r.contract.map((x) => x.rate))} deliveries/s, ${loopCounts(r.contract)}`);
  }
  if (r.outbox.length > 0) {
    console.log(`CPU outbox/durable:   ${spread(r.outbox.map((o, i) => totalUs(o.cpu) / totalUs(r.durable[i].cpu)), 2)} (the contract loop over the outbox's tables)`);
    console.log(`CPU daemon/outbox:    ${spread(runs.map((x, i) => totalUs(x.cpu) / totalUs(r.outbox[i].cpu)), 2)}`);
  }
  console.log(`duplicates:           ${runs.reduce((a, x) => a + x.duplicates, 0)} in all rounds`);
  console.log(`ingest→receipt:       p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms over ${LATENCY_SAMPLES} blocks (target p99 < 100 ms) ${r.p99 < 100 ? "OK" : "MISSED"}`);
  console.log(`CPU (share of one core) while the daemon delivered: ${describeCpu(medianWindow(runs.map((x) => x.cpu)), navigator.hardwareConcurrency)}; load average ${runs.map((x) => x.load.split(" ")[0]).join(", ")} at the rounds' starts`);
  if (r.durable.length > 0) console.log(`CPU (share of one core) while the durable loop delivered: ${describeCpu(medianWindow(r.durable.map((d) => d.cpu)), navigator.hardwareConcurrency)}`);
}

function printComparison(results: ScenarioRounds[], trees: Tree[], run: { postgres: string; loadBefore: string; loadAfter: string }): void {
  const cores = navigator.hardwareConcurrency;
  console.log("");
  console.log(
    `deliveries: ${TOTAL} per set-up and round, ${ROUNDS} round(s), over ${ACCOUNTS} account(s), concurrency ${CONCURRENCY} per daemon, receiver answers 200 at once; PostgreSQL ${run.postgres} on this machine; ${cores} CPUs`,
  );
  console.log(`load average: ${run.loadBefore} before, ${run.loadAfter} after; figures are medians (min–max) over the rounds`);
  console.log("");
  // CPU per delivery first: on shared cores it is the steady figure, throughput swings with the load.
  const head = ["set-up", "CPU µs/delivery", "deliveries/s", "dup", "p50 ms", "p99 ms", "CPU µs/delivery by process (medians)"];
  console.log(`${head[0].padEnd(28)} ${head.slice(1, 6).map((h) => h.padStart(18)).join(" ")}  ${head[6]}`);
  const row = (label: string, ws: CpuWindow[], rates: number[], dup: string, p50: string, p99: string) =>
    console.log(`${label.padEnd(28)} ${[spread(ws.map(totalUs)), spread(rates), dup, p50, p99].map((c) => c.padStart(18)).join(" ")}  ${roles(ws)}`);
  for (const r of results) {
    const name = scenarioLabel(r.scenario);
    for (const t of trees) {
      const runs = r.daemon.get(t.label)!;
      const mine = t.path === undefined;
      row(`${name}${mine ? "" : `, ${t.label}`}`, runs.map((x) => x.cpu), runs.map((x) => x.rate), String(runs.reduce((a, x) => a + x.duplicates, 0)), mine ? r.p50.toFixed(1) : "-", mine ? r.p99.toFixed(1) : "-");
    }
    if (r.durable.length > 0) row(`${name}, durable loop`, r.durable.map((d) => d.cpu), r.durable.map((d) => d.rate), String(r.durable.reduce((a, d) => a + d.duplicates, 0)), "-", "-");
    if (r.contract.length > 0) row(`${name}, contract loop`, r.contract.map((d) => d.cpu), r.contract.map((d) => d.rate), String(r.contract.reduce((a, d) => a + d.duplicates, 0)), "-", "-");
    if (r.outbox.length > 0) row(`${name}, over the outbox`, r.outbox.map((d) => d.cpu), r.outbox.map((d) => d.rate), String(r.outbox.reduce((a, d) => a + d.duplicates, 0)), "-", "-");
    row(`${name}, raw fetch loop`, r.raw.map((x) => x.cpu), r.raw.map((x) => x.rate), "-", "-", "-");
  }
  console.log("");
  for (const r of results) {
    for (const [name, runs] of [["durable", r.durable], ["contract", r.contract], ["contract-over-the-outbox", r.outbox]] as const) {
      if (runs.length > 0) console.log(`${name} loop, ${scenarioLabel(r.scenario)}: ${runs[0].loops} loop(s), ${loopCounts(runs)}`);
    }
    if (r.contract.length > 0) console.log(`contract floor, ${scenarioLabel(r.scenario)}: ${describeContract(r)}`);
    if (r.outbox.length > 0) console.log(`over the outbox, ${scenarioLabel(r.scenario)}: ${describeOutbox(r)}`);
  }
  const sqlite = results.find((r) => r.scenario.database === "sqlite");
  for (const r of results) {
    if (r.scenario.database !== "postgres" || !sqlite) continue;
    for (const t of trees) {
      const pg = r.daemon.get(t.label)!;
      const lite = sqlite.daemon.get(t.label)!;
      const floor = r.durable.length > 0 ? `; the floor's (durable loop on PostgreSQL / on SQLite) ${spread(r.durable.map((d, i) => d.rate / sqlite.durable[i].rate), 2)}` : "";
      console.log(
        `${scenarioLabel(r.scenario)}${t.path === undefined ? "" : ` (${t.label})`} / SQLite daemon: ${spread(pg.map((x, i) => x.rate / lite[i].rate), 2)} of its deliveries/s, ${spread(pg.map((x, i) => totalUs(lite[i].cpu) / totalUs(x.cpu)), 2)} by CPU per delivery${floor}`,
      );
    }
  }
  for (const r of results) console.log(`CPU while ${scenarioLabel(r.scenario)} delivered (share of one core, medians): ${describeCpu(medianWindow(r.daemon.get("daemon")!.map((x) => x.cpu)), cores)}`);
  console.log(
    JSON.stringify({
      bench: "deliver",
      deliveries: TOTAL,
      rounds: ROUNDS,
      accounts: ACCOUNTS,
      concurrency: CONCURRENCY,
      postgres: run.postgres,
      load_before: run.loadBefore,
      load_after: run.loadAfter,
      setups: results.map((r) => ({
        database: r.scenario.database,
        daemons: r.scenario.daemons,
        trees: Object.fromEntries(
          trees.map((t) => {
            const runs = r.daemon.get(t.label)!;
            return [t.label, { deliveries_per_s: runs.map((x) => Math.round(x.rate)), cpu_us_per_delivery: runs.map((x) => cpuPerUnit(x.cpu, TOTAL)), duplicates: runs.map((x) => x.duplicates) }];
          }),
        ),
        raw_per_s: r.raw.map((x) => Math.round(x.rate)),
        raw_cpu_us_per_delivery: r.raw.map((x) => cpuPerUnit(x.cpu, TOTAL)),
        p50_ms: Number(r.p50.toFixed(1)),
        p99_ms: Number(r.p99.toFixed(1)),
        durable: r.durable.map(durableJson),
        contract: r.contract.map(durableJson),
        contract_over_the_outbox: r.outbox.map(durableJson),
      })),
    }),
  );
}

/**
 * The last line: whether the targets were reached (medians over the rounds), and when one was not,
 * the figure, the target and why — what of a delivery's CPU is the floor's and what chainwatch's own.
 */
function verdict(results: ScenarioRounds[], compare: boolean): string {
  const missed: string[] = [];
  const met: string[] = [];
  const sqlite = results.find((r) => r.scenario.database === "sqlite")!;
  const lite = sqlite.daemon.get("daemon")!;
  if (sqlite.durable.length === 0) missed.push("SQLite: no durable loop to compare with (BENCH_DURABLE=0)");
  else {
    const daemonUs = Math.round(median(lite.map((x) => totalUs(x.cpu))));
    const durableUs = Math.round(median(sqlite.durable.map((d) => totalUs(d.cpu))));
    const ratio = median(lite.map((x, i) => totalUs(x.cpu) / totalUs(sqlite.durable[i].cpu)));
    const figure = `SQLite ${daemonUs} µs a delivery = ${ratio.toFixed(2)}× the durable loop's ${durableUs} (target <= ${SQLITE_TARGET}×)`;
    if (ratio <= SQLITE_TARGET) met.push(figure);
    else
      missed.push(
        sqlite.contract.length > 0
          ? `${figure}: the contract's own work puts its least implementation at ${median(sqlite.contract.map((c, i) => totalUs(c.cpu) / totalUs(sqlite.durable[i].cpu))).toFixed(2)}× the durable loop; ${describeContract(sqlite)}${sqlite.outbox.length > 0 ? `; ${describeOutbox(sqlite)}` : ""} (docs/benchmarks.md)`
          : `${figure}: ${daemonUs - durableUs} µs are chainwatch's own work above the floor — the claim's reads (its rows, their accounts and endpoints), the settlement's writes (attempt log, the outbox's indexes, charge, usage, endpoint health) and two signatures with their headers (profile in docs/benchmarks.md)`,
      );
  }
  if (compare) {
    for (const r of results) {
      if (r.scenario.database !== "postgres" || r.scenario.daemons !== 1) continue;
      const pg = r.daemon.get("daemon")!;
      const ratio = median(pg.map((x, i) => x.rate / lite[i].rate));
      const figure = `PostgreSQL ${ratio.toFixed(2)} of the SQLite daemon's deliveries/s (target >= ${POSTGRES_TARGET})`;
      if (ratio >= POSTGRES_TARGET) {
        met.push(figure);
        continue;
      }
      if (r.durable.length === 0) {
        missed.push(`${figure}: no durable loop to compare with (BENCH_DURABLE=0)`);
        continue;
      }
      const floor = median(r.durable.map((d, i) => d.rate / sqlite.durable[i].rate));
      const own = Math.round(median(pg.map((x, i) => totalUs(x.cpu) - totalUs(r.durable[i].cpu))));
      const why =
        floor < POSTGRES_TARGET
          ? `the floor itself reaches ${floor.toFixed(2)} of SQLite's (the durable loop's commit a round trip to the server); chainwatch's own work above the PostgreSQL floor is ${own} µs a delivery (its round trips per commit, the server's share of them)`
          : `the floor reaches ${floor.toFixed(2)}: ${own} µs a delivery of chainwatch's own above it (round trips per commit and the server's work for them)`;
      missed.push(`${figure}: ${why}`);
    }
  }
  if (missed.length === 0) return `targets met: ${met.join("; ")}`;
  return `target missed: ${missed.join("; ")}${met.length > 0 ? `; met: ${met.join("; ")}` : ""}`;
}

/** "0 duplicates, 0 lost in all rounds; first round 981 commits (20.4 sends a commit, 19 µs of wall time in commits per delivery), 796 claims": a baseline loop's rounds. */
function loopCounts(runs: DurableOutcome[]): string {
  const d = runs[0];
  return `${runs.reduce((a, x) => a + x.duplicates, 0)} duplicates, ${runs.reduce((a, x) => a + x.lost, 0)} lost in all rounds; first round ${d.commits} commits (${(d.sent / Math.max(1, d.commits)).toFixed(1)} sends a commit, ${commitUs(d)} µs of wall time in commits per delivery), ${d.claims} claims`;
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
