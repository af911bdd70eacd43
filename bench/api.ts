// Signed API benchmark (not a test): `bun run bench:api`.
//
// GET /v1/account on the daemon (a `serve` subprocess: signature check, key cache, rate limiter,
// two SQLite reads) against a bare Bun.serve subprocess answering a JSON body of the same size.
// One load generator (a third process: N keep-alive fetch loops, pre-signed headers spread over
// BENCH_KEYS keys, 100 by default) drives both with the same connections and duration. The first figure is the CPU
// each request costs (µs, from /proc: the daemon or bare server, and the load generator), steady
// on a shared machine; beside it the throughput ratio. Every server is driven in turn for
// BENCH_ROUNDS rounds (5), the first after BENCH_WARMUP_MS of warm-up, each later one after
// BENCH_ROUND_WARMUP_MS, so a spell of other work on the machine falls on every side alike; each
// figure is the median of the rounds with their spread. Targets: the daemon's CPU per request <=
// 1.3 times the bare Elysia + HMAC floor's, signed / bare >= 0.8 req/s; the last line says
// whether they were met, and why not.
//
// `--database postgres --daemons N` runs one daemon on SQLite, one on PostgreSQL and N on one
// PostgreSQL database (a throwaway cluster on this machine, see support/postgres.ts) side by side,
// each right after its own bare run; with N daemons the load generator sends its requests
// round-robin over their ports. Reports the CPU each process used.
//
// Beside the bare Bun.serve, two baselines made of the fixed stack's parts only
// (support/bare-elysia.ts), driven the same way in the same run: a bare Elysia app answering the
// same-size JSON on the same path, and the same app with the three headers' HMAC check (no
// database). Between them they split the daemon's CPU per request into the framework's floor, the
// signature's, and chainwatch's own (BENCH_ELYSIA=0 skips them; BENCH_ELYSIA_SYNC=1 adds the HMAC
// check in a synchronous derive: what the async hook itself costs).
import type { Subprocess } from "bun";
import { createHash, createHmac } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAccount } from "../src/accounts/accounts.ts";
import { createApiKey } from "../src/accounts/api-keys.ts";
import { setPlan } from "../src/accounts/plans.ts";
import { loadConfig } from "../src/config/load.ts";
import { openContext } from "../src/daemon.ts";
import { cpuOf, cpuOfTree, type CpuProbe, type CpuWindow, cpuPerUnit, describeCpu, loadAverage } from "./support/cpu.ts";
import { measureLoadCpu } from "./support/load-cpu.ts";
import { killOnInterrupt, onInterrupt } from "./support/interrupt.ts";
import { freePort, spawnDaemons, stopAll, waitForHealth, writeDaemonConfig } from "./support/daemons.ts";
import { type LoadResult, type LoadTarget, runLoadInSubprocess } from "./support/load.ts";
import { type BenchCluster, serverVersion, startCluster } from "./support/postgres.ts";
import { median, spread, summary } from "./support/rounds.ts";
import { type Scenario, scenarioLabel, scenariosFromArgv } from "./support/scenarios.ts";

/** Accounts with one key each, the load spread over them; every key and account snapshot is read again once a second it is used. */
const KEYS = Math.max(1, Number(process.env.BENCH_KEYS ?? 100));
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 3_000);
// Long enough for a fresh daemon's JIT to settle: with 2 s its compiling still showed in the measured CPU.
const WARMUP_MS = Number(process.env.BENCH_WARMUP_MS ?? 5_000);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 5));
/** The warm-up of every round after the first: the connections' ramp, the JIT long settled. */
const ROUND_WARMUP_MS = Number(process.env.BENCH_ROUND_WARMUP_MS ?? Math.min(WARMUP_MS, 1_000));
/** The targets: the daemon's server CPU per request against the Elysia + HMAC floor's, and req/s against bare Bun.serve's. */
const CPU_TARGET = 1.3;
const RPS_TARGET = 0.8;
/** The signed route to drive; GET /v1/account by default (BENCH_PATH=/v1/endpoints isolates auth from SQLite). */
const PATH = process.env.BENCH_PATH ?? "/v1/account";
const ROOT = join(import.meta.dir, "..");
/** Extra arguments for the daemons' `bun` (BENCH_DAEMON_ARGS="--cpu-prof-md --cpu-prof-dir=/tmp/p" profiles them). */
const DAEMON_ARGS = (process.env.BENCH_DAEMON_ARGS ?? "").split(" ").filter(Boolean);
/** The bare Elysia baselines (support/bare-elysia.ts); BENCH_ELYSIA=0 leaves them out. */
const ELYSIA_BASELINES = process.env.BENCH_ELYSIA !== "0";
const ELYSIA_SYNC = process.env.BENCH_ELYSIA_SYNC === "1";

const { scenarios, compare } = scenariosFromArgv(process.argv.slice(2), "bun run bench:api");
const processes: Subprocess[] = [];
killOnInterrupt(processes);
const dir = mkdtempSync(join(tmpdir(), "chainwatch-bench-api-"));
onInterrupt(() => rmSync(dir, { recursive: true, force: true }));
let cluster: BenchCluster | undefined;

try {
  await main();
} finally {
  await stopAll(processes);
  cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
}

/** A stack-only baseline run in the same set-up: its name, what the load generator saw, and the CPU of its server and the load generator. */
type Baseline = { name: string; key: string; result: LoadResult; cpu: CpuWindow };

/** One round: every server driven once, in turn. */
type Round = { bare: LoadResult; signed: LoadResult; cpu: CpuWindow; bareCpu: CpuWindow; baselines: Baseline[]; load: string };

type Outcome = { scenario: Scenario; rounds: Round[] };

/** A stack-only baseline server: where it listens and its process. */
type BaselineServer = { name: string; key: string; url: string; proc: Subprocess };

async function main(): Promise<void> {
  const loadBefore = loadAverage();
  if (scenarios.some((s) => s.database === "postgres")) cluster = await startCluster();
  const outcomes: Outcome[] = [];
  let bareUrl = "";
  let bareServer: Subprocess | undefined;
  let bodyBytes = 0;
  for (const [i, scenario] of scenarios.entries()) {
    if (compare) log(`${scenarioLabel(scenario)}…`);
    const sub = join(dir, `s${i}`);
    mkdirSync(sub);
    const url = scenario.database === "sqlite" ? `sqlite://${sub}/chainwatch.db` : await cluster!.createDatabase(`bench_api_${i}`);
    const configPath = writeDaemonConfig(sub, url, ["[rate_limit]", "per_key_rps = 1000000"]);

    const keys = await createKeys(configPath);
    log(`created ${keys.length} accounts and keys`);

    const mine: Subprocess[] = [];
    // Each set-up has its own keys: the HMAC baseline is started with them, and stopped with the daemons.
    const stackBaselines: BaselineServer[] = [];
    const daemons = await spawnDaemons(configPath, scenario.daemons, (p) => (mine.push(p), processes.push(p)), DAEMON_ARGS);
    try {
      // Round-robin over the daemons' ports; keys and ports cycle together (every pair occurs).
      const count = KEYS * daemons.length;
      const signedTargets: LoadTarget[] = Array.from({ length: count }, (_, n) => ({
        url: `${daemons[n % daemons.length].url}${PATH}`,
        headers: signedHeaders(keys[n % KEYS], PATH),
      }));
      for (const d of daemons) {
        const sample = await fetch(`${d.url}${PATH}`, { headers: signedTargets[0].headers });
        const sampleBody = await sample.text();
        if (sample.status !== 200) throw new Error(`GET ${PATH} answered ${sample.status}: ${sampleBody}`);
        bodyBytes ||= Buffer.byteLength(sampleBody);
      }

      if (!bareUrl) {
        const barePort = freePort();
        bareServer = spawn([process.execPath, join(ROOT, "bench/support/bare-server.ts"), String(barePort), String(bodyBytes)], dir);
        bareUrl = `http://127.0.0.1:${barePort}`;
        await waitForHealth(bareUrl);
        log(`load: ${CONNECTIONS} connections, ${WARMUP_MS} ms warm-up, ${DURATION_MS} ms measured, ${bodyBytes}-byte JSON body`);
      }
      if (ELYSIA_BASELINES) stackBaselines.push(...(await startElysiaBaselines(keys, bodyBytes, signedTargets[0].headers, `s${i}`)));
      // The same pre-signed headers go to the bare server, so both see requests of the same size.
      const bareTargets = signedTargets.slice(0, KEYS).map((t) => ({ ...t, url: `${bareUrl}${PATH}` }));

      const rounds: Round[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        const spec = { connections: CONNECTIONS, durationMs: DURATION_MS, warmupMs: r === 0 ? WARMUP_MS : ROUND_WARMUP_MS };
        const bareServerPid = bareServer!.pid;
        const bareMeasured = measureCpu({ server: () => cpuOf(bareServerPid) }, spec);
        const bare = await runLoadInSubprocess({ ...spec, targets: bareTargets }, bareMeasured.track);
        const baselines: Baseline[] = [];
        for (const b of stackBaselines) {
          const measuredB = measureCpu({ server: () => cpuOf(b.proc.pid) }, spec);
          const result = await runLoadInSubprocess({ ...spec, targets: signedTargets.slice(0, KEYS).map((t) => ({ ...t, url: `${b.url}${PATH}` })) }, measuredB.track);
          baselines.push({ name: b.name, key: b.key, result, cpu: await measuredB.window });
        }
        const load = loadAverage();
        const measured = measureCpu(
          {
            daemons: () => mine.reduce((sum, d) => sum + cpuOf(d.pid), 0),
            ...(cluster ? { postgres: () => cpuOfTree(cluster!.pid) } : {}),
          },
          spec,
        );
        const signed = await runLoadInSubprocess({ ...spec, targets: signedTargets }, measured.track);
        const round = { bare, signed, cpu: await measured.window, bareCpu: await bareMeasured.window, baselines, load };
        rounds.push(round);
        if (ROUNDS > 1) log(`round ${r + 1}/${ROUNDS}: server µs per request ${describeRound(round)}; load average ${load}`);
      }
      outcomes.push({ scenario, rounds });
    } finally {
      await stopAll([...mine, ...stackBaselines.map((b) => b.proc)]);
    }
  }

  if (!compare) return report(outcomes[0], bodyBytes);
  reportComparison(outcomes, { bodyBytes, postgres: cluster ? await serverVersion(cluster.url) : "", loadBefore, loadAfter: loadAverage() });
}

/**
 * Starts the bare Elysia baselines (support/bare-elysia.ts): plain, and with the HMAC check over
 * the bench's keys (their secrets in a file of the bench's temp directory, removed at the end).
 */
async function startElysiaBaselines(
  keys: { api_key: string; secret: string }[],
  bodyBytes: number,
  probeHeaders: Record<string, string> | undefined,
  sub: string,
): Promise<BaselineServer[]> {
  const keysFile = join(dir, sub, "bare-elysia-keys.json");
  writeFileSync(keysFile, JSON.stringify(Object.fromEntries(keys.map((k) => [k.api_key, k.secret]))), { mode: 0o600 });
  const out: BaselineServer[] = [];
  const kinds: [string, string, string][] = [
    ["bare Elysia", "elysia", "plain"],
    ...(ELYSIA_SYNC ? [["bare Elysia + sync HMAC", "elysia_hmac_sync", "hmac-sync"] as [string, string, string]] : []),
    // Last: the closest to the daemon, which the report measures it against.
    ["bare Elysia + HMAC", "elysia_hmac", "hmac"],
  ];
  for (const [name, key, mode] of kinds) {
    const port = freePort();
    const proc = spawn([process.execPath, join(ROOT, "bench/support/bare-elysia.ts"), String(port), String(bodyBytes), PATH, mode, keysFile], dir);
    const url = `http://127.0.0.1:${port}`;
    await waitForHealth(`${url}${PATH}`, proc, { headers: probeHeaders });
    const sample = await (await fetch(`${url}${PATH}`, { headers: probeHeaders })).text();
    if (Buffer.byteLength(sample) !== bodyBytes) throw new Error(`${name} answered ${Buffer.byteLength(sample)} bytes, not ${bodyBytes}`);
    out.push({ name, key, url, proc });
  }
  return out;
}

/** CPU of the serving processes (`roles`) and of the load generator over a load run's measured window. */
function measureCpu(roles: CpuProbe, timing: { warmupMs: number; durationMs: number }): { track: (p: Subprocess) => void; window: Promise<CpuWindow> } {
  return measureLoadCpu(roles, timing, track);
}

/** "bare Bun.serve 14, bare Elysia 15, bare Elysia + HMAC 21, daemon 30". */
function describeRound(r: Round): string {
  const us = (w: CpuWindow, res: LoadResult, role: string) => cpuPerUnit(w, res.requests)[role];
  return [`bare Bun.serve ${us(r.bareCpu, r.bare, "server")}`, ...r.baselines.map((b) => `${b.name} ${us(b.cpu, b.result, "server")}`), `daemon ${us(r.cpu, r.signed, "daemons")}`].join(", ");
}

/** Each round's figure of one side: its CPU µs per request by role, req/s, p50 and p99. */
type Side = { name: string; us: Record<string, number>[]; rps: number[]; p50: number[]; p99: number[]; requests: number; errors: number };

function sideOf(name: string, rounds: { result: LoadResult; cpu: CpuWindow }[]): Side {
  return {
    name,
    us: rounds.map((r) => cpuPerUnit(r.cpu, r.result.requests)),
    rps: rounds.map((r) => r.result.rps),
    p50: rounds.map((r) => r.result.p50),
    p99: rounds.map((r) => r.result.p99),
    requests: rounds.reduce((n, r) => n + r.result.requests, 0),
    errors: rounds.reduce((n, r) => n + r.result.errors, 0),
  };
}

/** A role's median CPU µs per request over the rounds. */
function roleMedian(side: Side, role: string): number {
  return Math.round(median(side.us.map((u) => u[role])));
}

/** The round whose daemon CPU per request is the median one (for the tables that show one round). */
function medianRound(o: Outcome): Round {
  const us = o.rounds.map((r) => cpuPerUnit(r.cpu, r.signed.requests).daemons);
  const sorted = [...us].sort((a, b) => a - b);
  return o.rounds[us.indexOf(sorted[Math.floor((sorted.length - 1) / 2)])];
}

/** Plans, accounts and keys created in-process (the CLI would take a process per key). */
async function createKeys(configPath: string): Promise<{ api_key: string; secret: string }[]> {
  const loaded = loadConfig(configPath);
  if (!loaded.ok) throw new Error(loaded.error);
  const ctx = await openContext(loaded.config, { env: {} });
  try {
    const plan = await setPlan(ctx.db, ctx.clock, { name: "bench", slots: 10 });
    if (!plan.ok) throw new Error(plan.error);
    const keys = [];
    for (let i = 0; i < KEYS; i++) {
      const account = await createAccount(ctx, { name: `bench-${i}`, plan: "bench", credits: 1000 });
      if (!account.ok) throw new Error(account.error);
      const key = await createApiKey(ctx, { accountId: account.account.id, allowIps: [] });
      if (!key.ok) throw new Error(key.error);
      keys.push(key.key);
    }
    return keys;
  } finally {
    await ctx.db.destroy();
  }
}

/** Headers signed once, up front: valid for ±300 s, far longer than the run. */
function signedHeaders(key: { api_key: string; secret: string }, path: string): Record<string, string> {
  const ts = String(Math.floor(Date.now() / 1000));
  const bodyHash = createHash("sha256").update("").digest("hex");
  const signature = createHmac("sha256", key.secret).update(`${ts}\nGET\n${path}\n${bodyHash}`).digest("hex");
  return { "X-Api-Key": key.api_key, "X-Timestamp": ts, "X-Signature": signature };
}

/** What every JSON line of this bench says of its run. */
// A function declaration, not a const: main() runs (top-level await) before the module's later consts exist.
function runOf(bodyBytes: number) {
  return { bench: "api", path: PATH, connections: CONNECTIONS, duration_ms: DURATION_MS, keys: KEYS, body_bytes: bodyBytes };
}

function report(o: Outcome, bodyBytes: number): void {
  const rounds = o.rounds;
  const bare = sideOf("bare Bun.serve", rounds.map((r) => ({ result: r.bare, cpu: r.bareCpu })));
  const baselines = (rounds[0].baselines ?? []).map((b, i) => sideOf(b.name, rounds.map((r) => ({ result: r.baselines[i].result, cpu: r.baselines[i].cpu }))));
  const signed = sideOf(`GET ${PATH}`, rounds.map((r) => ({ result: r.signed, cpu: r.cpu })));
  const floor = baselines.at(-1);
  // Ratios within each round (both sides measured minutes apart at most), then their median.
  const cpuRatios = floor ? rounds.map((_, i) => signed.us[i].daemons / Math.max(1, floor.us[i].server)) : [];
  const rpsRatios = rounds.map((_, i) => signed.rps[i] / bare.rps[i]);
  const row = (s: Side, role: string) =>
    `${s.name.padEnd(22)} ${String(Math.round(median(s.rps))).padStart(8)} ${median(s.p50).toFixed(2).padStart(8)} ${median(s.p99).toFixed(2).padStart(8)} ${String(s.requests).padStart(9)} ${String(s.errors).padStart(7)}   ${spread(s.us.map((u) => u[role])).padEnd(16)} ${Math.round(median(s.us.map((u) => u["load generator"])))}`;
  console.log("");
  console.log(`${ROUNDS} rounds: medians of req/s, p50 and p99; requests and errors over every round; server CPU µs per request, median (lowest–highest round)`);
  console.log(`${"target".padEnd(22)} ${"req/s".padStart(8)} ${"p50 ms".padStart(8)} ${"p99 ms".padStart(8)} ${"requests".padStart(9)} ${"errors".padStart(7)}   ${"server µs".padEnd(16)} load generator µs`);
  console.log(row(bare, "server"));
  for (const b of baselines) console.log(row(b, "server"));
  console.log(row(signed, "daemons"));
  console.log("");
  const daemonUs = roleMedian(signed, "daemons");
  const bareUs = roleMedian(bare, "server");
  const total = (s: Side, role: string) => Math.round(median(s.us.map((u) => u[role] + (u["load generator"] ?? 0))));
  console.log(`CPU µs per request: daemon ${daemonUs}, bare server ${bareUs} (${(daemonUs / Math.max(1, bareUs)).toFixed(2)}×); with the load generator ${total(signed, "daemons")} against ${total(bare, "server")}`);
  if (floor) {
    const floorUs = roleMedian(floor, "server");
    const others = baselines.slice(0, -1).map((b) => `${b.name} ${roleMedian(b, "server")}, `).join("");
    console.log(`stack floor, server µs per request: daemon ${daemonUs} = ${floor.name} ${floorUs} + ${daemonUs - floorUs} of chainwatch's own; ${others}bare Bun.serve ${bareUs}`);
    console.log(`daemon / ${floor.name} = ${spread(cpuRatios, 2)}× CPU per request, within each round (target <= ${CPU_TARGET})`);
  }
  console.log(`signed / bare = ${median(rpsRatios).toFixed(2)} req/s (lowest–highest round ${Math.min(...rpsRatios).toFixed(2)}–${Math.max(...rpsRatios).toFixed(2)}; target >= ${RPS_TARGET}); ${CONNECTIONS} connections, ${ROUNDS} rounds of ${DURATION_MS} ms, ${KEYS} keys, ${bodyBytes}-byte body`);
  for (const b of baselines) {
    const vs = rounds.map((_, i) => signed.rps[i] / b.rps[i]);
    const ofBare = rounds.map((_, i) => b.rps[i] / bare.rps[i]);
    console.log(`signed / ${b.name} = ${median(vs).toFixed(2)} req/s; ${b.name} / bare Bun.serve = ${median(ofBare).toFixed(2)}`);
  }
  const cores = navigator.hardwareConcurrency;
  const last = rounds.at(-1)!;
  console.log(`CPU while bare answered, last round (share of one core): ${describeCpu(last.bareCpu, cores)}`);
  for (const b of last.baselines) console.log(`CPU while ${b.name} answered, last round (share of one core): ${describeCpu(b.cpu, cores)}`);
  console.log(`CPU while signed answered, last round (share of one core): ${describeCpu(last.cpu, cores)}; load average ${rounds.map((r) => r.load.split(" ")[0]).join(", ")} (1 min, each round)`);
  console.log(
    JSON.stringify({
      ...runOf(bodyBytes),
      rounds: ROUNDS,
      bare: medianResult(bare),
      signed: medianResult(signed),
      ratio: summary(rpsRatios),
      cpu_ratio_to_floor: floor ? summary(cpuRatios) : null,
      cpu_us_per_request: { bare: bare.us, signed: signed.us },
      baselines: Object.fromEntries(baselines.map((b, i) => [rounds[0].baselines[i].key, { ...medianResult(b), cpu_us_per_request: b.us }])),
    }),
  );
  if (bare.errors > 0 || signed.errors > 0 || baselines.some((b) => b.errors > 0)) process.exitCode = 1;
  console.log(verdict({ daemonUs, floorUs: floor ? roleMedian(floor, "server") : undefined, cpuRatio: floor ? median(cpuRatios) : undefined, rpsRatio: median(rpsRatios), signedTotal: total(signed, "daemons"), bareTotal: total(bare, "server") }));
}

/** The last line: whether each target was met over the rounds' medians, and the reason when one was not. */
function verdict(v: { daemonUs: number; floorUs?: number; cpuRatio?: number; rpsRatio: number; signedTotal: number; bareTotal: number }): string {
  const missed: string[] = [];
  const met: string[] = [];
  if (v.cpuRatio === undefined || v.floorUs === undefined) missed.push("CPU per request not judged: no Elysia + HMAC floor measured (BENCH_ELYSIA=0)");
  else if (v.cpuRatio <= CPU_TARGET) met.push(`daemon ${v.daemonUs} µs a request, ${v.cpuRatio.toFixed(2)}× the Elysia + HMAC floor (<= ${CPU_TARGET})`);
  else
    missed.push(
      `daemon ${v.daemonUs} µs a request, ${v.cpuRatio.toFixed(2)}× the Elysia + HMAC floor's ${v.floorUs} (target <= ${CPU_TARGET}): ${v.daemonUs - v.floorUs} µs of chainwatch's own above the floor (the key cache, the rate window, the account snapshot and its answer, the request counter, the background workers; docs/benchmarks.md)`,
    );
  if (v.rpsRatio >= RPS_TARGET) met.push(`${v.rpsRatio.toFixed(2)} of bare Bun.serve's req/s (>= ${RPS_TARGET})`);
  else
    missed.push(
      `${v.rpsRatio.toFixed(2)} of bare Bun.serve's req/s (target >= ${RPS_TARGET}): the load generator shares the ${navigator.hardwareConcurrency} cores, so req/s follows the CPU of server and load generator together, ${v.signedTotal} µs a signed request against ${v.bareTotal} for bare Bun.serve`,
    );
  return missed.length === 0 ? `targets met (medians of ${ROUNDS} rounds): ${met.join("; ")}` : `target missed (medians of ${ROUNDS} rounds): ${missed.join("; ")}${met.length ? `; met: ${met.join("; ")}` : ""}`;
}

/** A side's medians in the shape of a LoadResult, for the JSON line. */
function medianResult(s: Side) {
  return { rps: Math.round(median(s.rps)), p50: Number(median(s.p50).toFixed(2)), p99: Number(median(s.p99).toFixed(2)), requests: s.requests, errors: s.errors };
}

function reportComparison(outcomes: Outcome[], run: { bodyBytes: number; postgres: string; loadBefore: string; loadAfter: string }): void {
  const cores = navigator.hardwareConcurrency;
  // Each set-up's row is its median round by the daemons' CPU per request.
  const picked = outcomes.map((o) => ({ scenario: o.scenario, ...medianRound(o) }));
  console.log("");
  console.log(`GET ${PATH}: ${CONNECTIONS} connections, ${DURATION_MS} ms measured, ${KEYS} keys, ${run.bodyBytes}-byte body; PostgreSQL ${run.postgres} on this machine; ${cores} CPUs`);
  console.log(`load average: ${run.loadBefore} before, ${run.loadAfter} after; each row the median of ${ROUNDS} rounds by the daemons' CPU per request`);
  console.log("");
  const cols = ["bare req/s", "signed req/s", "ratio", "p50 ms", "p99 ms", "errors"];
  console.log(`${"set-up".padEnd(16)} ${cols.map((c) => c.padStart(12)).join(" ")}  CPU µs/request`);
  for (const o of picked) {
    const bareUs = cpuPerUnit(o.bareCpu, o.bare.requests);
    const floor = o.baselines.map((b) => `; ${b.name} ${cpuPerUnit(b.cpu, b.result.requests).server}`).join("");
    const per = `${Object.entries(cpuPerUnit(o.cpu, o.signed.requests)).map(([k, us]) => `${k} ${us}`).join(", ")}; bare server ${bareUs.server}, its load generator ${bareUs["load generator"] ?? "-"}${floor}`;
    const cells = [o.bare.rps, o.signed.rps, (o.signed.rps / o.bare.rps).toFixed(2), o.signed.p50.toFixed(2), o.signed.p99.toFixed(2), o.signed.errors + o.bare.errors];
    console.log(`${scenarioLabel(o.scenario).padEnd(16)} ${cells.map((c) => String(c).padStart(12)).join(" ")}  ${per}`);
  }
  console.log("");
  for (const o of picked) console.log(`CPU while ${scenarioLabel(o.scenario)} answered (share of one core): ${describeCpu(o.cpu, cores)}; load average ${o.load}`);
  console.log(
    JSON.stringify({
      ...runOf(run.bodyBytes),
      postgres: run.postgres,
      load_before: run.loadBefore,
      load_after: run.loadAfter,
      setups: picked.map((o) => ({
        database: o.scenario.database,
        daemons: o.scenario.daemons,
        bare: o.bare,
        signed: o.signed,
        ratio: Number((o.signed.rps / o.bare.rps).toFixed(3)),
        cpu_us_per_request: cpuPerUnit(o.cpu, o.signed.requests),
        bare_cpu_us_per_request: cpuPerUnit(o.bareCpu, o.bare.requests),
        baselines: baselinesJson(o.baselines),
      })),
    }),
  );
  const failed = (r: Round) => r.bare.errors > 0 || r.signed.errors > 0 || r.baselines.some((b) => b.result.errors > 0);
  if (outcomes.some((o) => o.rounds.some(failed))) process.exitCode = 1;
}

function baselinesJson(baselines: Baseline[]) {
  return Object.fromEntries(baselines.map((b) => [b.key, { ...b.result, cpu_us_per_request: cpuPerUnit(b.cpu, b.result.requests) }]));
}

function spawn(cmd: string[], cwd: string): Subprocess {
  const proc = Bun.spawn(cmd, { cwd, stdin: "ignore", stdout: "ignore", stderr: "inherit" });
  processes.push(proc);
  return proc;
}

function track(p: Subprocess): void {
  processes.push(p);
}

function log(line: string): void {
  console.log(`bench:api ${line}`);
}
