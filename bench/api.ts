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
import type { Subprocess } from "bun";
import { createHash, createHmac } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
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

type Outcome = { scenario: Scenario; bare: LoadResult; signed: LoadResult; cpu: CpuWindow; bareCpu: CpuWindow; load: string };

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
      // The same pre-signed headers go to the bare server, so both see requests of the same size.
      const bareTargets = signedTargets.slice(0, KEYS).map((t) => ({ ...t, url: `${bareUrl}${PATH}` }));

      const spec = { connections: CONNECTIONS, durationMs: DURATION_MS, warmupMs: WARMUP_MS };
      const bareServerPid = bareServer!.pid;
      const bareMeasured = measureCpu({ server: () => cpuOf(bareServerPid) });
      const bare = await runLoadInSubprocess({ ...spec, targets: bareTargets }, bareMeasured.track);
      const load = loadAverage();
      const measured = measureCpu({
        daemons: () => mine.reduce((sum, d) => sum + cpuOf(d.pid), 0),
        ...(cluster ? { postgres: () => cpuOfTree(cluster!.pid) } : {}),
      });
      const signed = await runLoadInSubprocess({ ...spec, targets: signedTargets }, measured.track);
      outcomes.push({ scenario, bare, signed, cpu: await measured.window, bareCpu: await bareMeasured.window, load });
    } finally {
      await stopAll(mine);
    }
  }

  if (!compare) return report(outcomes[0], bodyBytes);
  reportComparison(outcomes, { bodyBytes, postgres: cluster ? await serverVersion(cluster.url) : "", loadBefore, loadAfter: loadAverage() });
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
const runOf = (bodyBytes: number) => ({ bench: "api", path: PATH, connections: CONNECTIONS, duration_ms: DURATION_MS, keys: KEYS, body_bytes: bodyBytes });

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
  console.log(row(`GET ${PATH}`, signed, signedUs));
  console.log("");
  console.log(`CPU µs per request: daemon ${signedUs.daemons}, bare server ${bareUs.server} (${serverRatio.toFixed(2)}×); with the load generator ${totalUs(signedUs)} against ${totalUs(bareUs)}`);
  console.log(`signed / bare = ${ratio.toFixed(2)} req/s (target >= 0.8); ${CONNECTIONS} connections, ${DURATION_MS} ms, ${KEYS} keys, ${bodyBytes}-byte body`);
  const cores = navigator.hardwareConcurrency;
  console.log(`CPU while bare answered (share of one core): ${describeCpu(o.bareCpu, cores)}`);
  console.log(`CPU while signed answered (share of one core): ${describeCpu(o.cpu, cores)}; load average ${o.load}`);
  console.log(
    JSON.stringify({
      ...runOf(bodyBytes),
      bare,
      signed,
      ratio: Number(ratio.toFixed(3)),
      cpu_us_per_request: { bare: bareUs, signed: signedUs },
    }),
  );
  if (bare.errors > 0 || signed.errors > 0) process.exitCode = 1;
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
    const per = `${Object.entries(cpuPerUnit(o.cpu, o.signed.requests)).map(([k, us]) => `${k} ${us}`).join(", ")}; bare server ${bareUs.server}, its load generator ${bareUs["load generator"] ?? "-"}`;
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
      })),
    }),
  );
  if (outcomes.some((o) => o.bare.errors > 0 || o.signed.errors > 0)) process.exitCode = 1;
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
