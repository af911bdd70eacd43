// Signed API benchmark (not a test): `bun run bench:api`.
//
// GET /v1/account on the daemon (a `serve` subprocess: signature check, key cache, rate limiter,
// two SQLite reads) against a bare Bun.serve subprocess answering a JSON body of the same size.
// One load generator (a third process: N keep-alive fetch loops, pre-signed headers spread over
// 100 keys) drives both with the same connections and duration. The first figure is the CPU
// each request costs (µs, from /proc: the daemon or bare server, and the load generator), steady
// on a shared machine; beside it the throughput ratio. Target: signed / bare >= 0.8.
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
import { describeUs, measureLoadCpu, totalUs } from "./support/load-cpu.ts";
import { killOnInterrupt, onInterrupt } from "./support/interrupt.ts";
import { freePort, spawnDaemons, stopAll, waitForHealth, writeDaemonConfig } from "./support/daemons.ts";
import { type LoadResult, type LoadTarget, runLoadInSubprocess } from "./support/load.ts";
import { type BenchCluster, serverVersion, startCluster } from "./support/postgres.ts";
import { type Scenario, scenarioLabel, scenariosFromArgv } from "./support/scenarios.ts";

const KEYS = 100;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 10_000);
// Long enough for a fresh daemon's JIT to settle: with 2 s its compiling still showed in the measured CPU.
const WARMUP_MS = Number(process.env.BENCH_WARMUP_MS ?? 5_000);
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

type Outcome = { scenario: Scenario; bare: LoadResult; signed: LoadResult; cpu: CpuWindow; bareCpu: CpuWindow; baselines: Baseline[]; load: string };

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

      const spec = { connections: CONNECTIONS, durationMs: DURATION_MS, warmupMs: WARMUP_MS };
      const bareServerPid = bareServer!.pid;
      const bareMeasured = measureCpu({ server: () => cpuOf(bareServerPid) });
      const bare = await runLoadInSubprocess({ ...spec, targets: bareTargets }, bareMeasured.track);
      const baselines: Baseline[] = [];
      for (const b of stackBaselines) {
        const measuredB = measureCpu({ server: () => cpuOf(b.proc.pid) });
        const result = await runLoadInSubprocess({ ...spec, targets: signedTargets.slice(0, KEYS).map((t) => ({ ...t, url: `${b.url}${PATH}` })) }, measuredB.track);
        baselines.push({ name: b.name, key: b.key, result, cpu: await measuredB.window });
      }
      const load = loadAverage();
      const measured = measureCpu({
        daemons: () => mine.reduce((sum, d) => sum + cpuOf(d.pid), 0),
        ...(cluster ? { postgres: () => cpuOfTree(cluster!.pid) } : {}),
      });
      const signed = await runLoadInSubprocess({ ...spec, targets: signedTargets }, measured.track);
      outcomes.push({ scenario, bare, signed, cpu: await measured.window, bareCpu: await bareMeasured.window, baselines, load });
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
    // Last: the closest to the daemon, which describeFloor measures it against.
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
function measureCpu(roles: CpuProbe): { track: (p: Subprocess) => void; window: Promise<CpuWindow> } {
  return measureLoadCpu(roles, { warmupMs: WARMUP_MS, durationMs: DURATION_MS }, track);
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
  const { bare, signed } = o;
  const bareUs = cpuPerUnit(o.bareCpu, bare.requests);
  const signedUs = cpuPerUnit(o.cpu, signed.requests);
  const row = (name: string, r: LoadResult, us: Record<string, number>) =>
    `${name.padEnd(22)} ${String(r.rps).padStart(8)} ${r.p50.toFixed(2).padStart(8)} ${r.p99.toFixed(2).padStart(8)} ${String(r.requests).padStart(9)} ${String(r.errors).padStart(7)}   ${describeUs(us)}`;
  const ratio = signed.rps / bare.rps;
  const serverRatio = signedUs.daemons / Math.max(1, bareUs.server);
  console.log("");
  console.log(`${"target".padEnd(22)} ${"req/s".padStart(8)} ${"p50 ms".padStart(8)} ${"p99 ms".padStart(8)} ${"requests".padStart(9)} ${"errors".padStart(7)}   CPU µs per request`);
  console.log(row("bare Bun.serve", bare, bareUs));
  for (const b of o.baselines) console.log(row(b.name, b.result, cpuPerUnit(b.cpu, b.result.requests)));
  console.log(row(`GET ${PATH}`, signed, signedUs));
  console.log("");
  console.log(`CPU µs per request: daemon ${signedUs.daemons}, bare server ${bareUs.server} (${serverRatio.toFixed(2)}×); with the load generator ${totalUs(signedUs)} against ${totalUs(bareUs)}`);
  if (o.baselines.length > 0) console.log(`stack floor, server µs per request: ${describeFloor(signedUs.daemons, o.baselines, bareUs.server)}`);
  console.log(`signed / bare = ${ratio.toFixed(2)} req/s (target >= 0.8); ${CONNECTIONS} connections, ${DURATION_MS} ms, ${KEYS} keys, ${bodyBytes}-byte body`);
  for (const b of o.baselines) console.log(`signed / ${b.name} = ${(signed.rps / b.result.rps).toFixed(2)} req/s; ${b.name} / bare Bun.serve = ${(b.result.rps / bare.rps).toFixed(2)}`);
  const cores = navigator.hardwareConcurrency;
  console.log(`CPU while bare answered (share of one core): ${describeCpu(o.bareCpu, cores)}`);
  for (const b of o.baselines) console.log(`CPU while ${b.name} answered (share of one core): ${describeCpu(b.cpu, cores)}`);
  console.log(`CPU while signed answered (share of one core): ${describeCpu(o.cpu, cores)}; load average ${o.load}`);
  console.log(
    JSON.stringify({
      ...runOf(bodyBytes),
      bare,
      signed,
      ratio: Number(ratio.toFixed(3)),
      cpu_us_per_request: { bare: bareUs, signed: signedUs },
      baselines: baselinesJson(o.baselines),
    }),
  );
  if (bare.errors > 0 || signed.errors > 0 || o.baselines.some((b) => b.result.errors > 0)) process.exitCode = 1;
}

function reportComparison(outcomes: Outcome[], run: { bodyBytes: number; postgres: string; loadBefore: string; loadAfter: string }): void {
  const cores = navigator.hardwareConcurrency;
  console.log("");
  console.log(`GET ${PATH}: ${CONNECTIONS} connections, ${DURATION_MS} ms measured, ${KEYS} keys, ${run.bodyBytes}-byte body; PostgreSQL ${run.postgres} on this machine; ${cores} CPUs`);
  console.log(`load average: ${run.loadBefore} before, ${run.loadAfter} after`);
  console.log("");
  const cols = ["bare req/s", "signed req/s", "ratio", "p50 ms", "p99 ms", "errors"];
  console.log(`${"set-up".padEnd(16)} ${cols.map((c) => c.padStart(12)).join(" ")}  CPU µs/request`);
  for (const o of outcomes) {
    const bareUs = cpuPerUnit(o.bareCpu, o.bare.requests);
    const floor = o.baselines.map((b) => `; ${b.name} ${cpuPerUnit(b.cpu, b.result.requests).server}`).join("");
    const per = `${Object.entries(cpuPerUnit(o.cpu, o.signed.requests)).map(([k, us]) => `${k} ${us}`).join(", ")}; bare server ${bareUs.server}, its load generator ${bareUs["load generator"] ?? "-"}${floor}`;
    const cells = [o.bare.rps, o.signed.rps, (o.signed.rps / o.bare.rps).toFixed(2), o.signed.p50.toFixed(2), o.signed.p99.toFixed(2), o.signed.errors + o.bare.errors];
    console.log(`${scenarioLabel(o.scenario).padEnd(16)} ${cells.map((c) => String(c).padStart(12)).join(" ")}  ${per}`);
  }
  console.log("");
  for (const o of outcomes) console.log(`CPU while ${scenarioLabel(o.scenario)} answered (share of one core): ${describeCpu(o.cpu, cores)}; load average ${o.load}`);
  console.log(
    JSON.stringify({
      ...runOf(run.bodyBytes),
      postgres: run.postgres,
      load_before: run.loadBefore,
      load_after: run.loadAfter,
      setups: outcomes.map((o) => ({
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
  if (outcomes.some((o) => o.bare.errors > 0 || o.signed.errors > 0 || o.baselines.some((b) => b.result.errors > 0))) process.exitCode = 1;
}

/** "daemon 47 = bare Elysia + HMAC 31 + 16 of chainwatch's own; bare Elysia 27, bare Bun.serve 19". */
function describeFloor(daemonUs: number, baselines: Baseline[], bareUs: number): string {
  const us = baselines.map((b) => ({ name: b.name, us: cpuPerUnit(b.cpu, b.result.requests).server }));
  const closest = us.at(-1)!;
  return `daemon ${daemonUs} = ${closest.name} ${closest.us} + ${daemonUs - closest.us} of chainwatch's own; ${us
    .slice(0, -1)
    .map((b) => `${b.name} ${b.us}, `)
    .join("")}bare Bun.serve ${bareUs}`;
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
