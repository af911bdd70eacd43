// JSON-RPC proxy benchmark (not a test): `bun run bench:rpc`.
//
// eth_blockNumber and eth_getBlockByNumber through chainwatch's /rpc/eth/{api_key} (a `serve`
// subprocess: key cache, allowlist, method policy, rpc_rps window, in-memory credit check, the
// upstream pool, batched charges) against the same calls sent straight to the same anvil node.
// One load generator subprocess drives both with the same connections and duration, in one run.
// A minimal Bun proxy (bench/support/bare-rpc-proxy.ts) runs beside them: what the extra HTTP hop
// alone costs here, and the same proxy as one Elysia route (what the framework's pipeline adds to a
// call; chainwatch serves /rpc from Bun's routes, past that pipeline), and the same Bun proxy
// doing the least the /rpc contract asks of a call (its `contract` mode: key, depth-bounded parse,
// a rebuilt call, allow-list, rate window, credits, the answer bounded, parsed (one that is not
// JSON is the node's failure) and judged to bill it): what the contract itself costs, so that
// chainwatch against it is chainwatch's own. Added latency is also measured with one connection,
// where nothing queues. `bench:rpc-core` measures the same handlers without the sockets.
// The first figure is the CPU a call costs (µs, from /proc: the proxy or chainwatch, anvil and the
// load generator), steady on a shared machine. Every target is driven in turn for BENCH_ROUNDS
// rounds (5), the first after BENCH_WARMUP_MS of warm-up, each later one after BENCH_ROUND_WARMUP_MS,
// so a spell of other work falls on every side alike; each figure is the median of the rounds with
// their spread, and each ratio is taken within a round. Targets: chainwatch >= 0.9 of the minimal
// proxy's req/s, its CPU per call <= 1.3 times the minimal proxy's, added p50 latency < 1 ms; the
// last line says whether they were met, and why not.
// BENCH_BEFORE=<checkout>: another source tree (sharing this one's node_modules) whose daemon,
// over a copy of the same database, is driven beside this tree's in every round (after it in the
// first, third, … round, before it in the others): a before/after comparison in one run, its ratio
// taken within each round.
import type { Subprocess } from "bun";
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAccount } from "../src/accounts/accounts.ts";
import { createApiKey } from "../src/accounts/api-keys.ts";
import { setPlan } from "../src/accounts/plans.ts";
import { loadConfig } from "../src/config/load.ts";
import { openContext } from "../src/daemon.ts";
import { startAnvil } from "../test/support/anvil.ts";
import { type LoadResult, type LoadTarget, runLoadInSubprocess } from "./support/load.ts";
import { freePort, waitForHealth } from "./support/daemons.ts";
import { cpuOf, type CpuProbe, cpuPerUnit, loadAverage } from "./support/cpu.ts";
import { measureLoadCpu, totalUs } from "./support/load-cpu.ts";
import { median, spread, summary } from "./support/rounds.ts";

const ACCOUNTS = 10;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 2_000);
// Long enough for a fresh daemon's JIT to settle on the path: with 1 s, its compiling showed in the first measured window.
const WARMUP_MS = Number(process.env.BENCH_WARMUP_MS ?? 3_000);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 5));
/** The warm-up of every round after the first: the connections' ramp, the JIT long settled. */
const ROUND_WARMUP_MS = Number(process.env.BENCH_ROUND_WARMUP_MS ?? Math.min(WARMUP_MS, 500));
const CPU_TARGET = 1.3;
const RPS_TARGET = 0.9;
const ROOT = join(import.meta.dir, "..");
/** Extra arguments for the daemon's `bun` (BENCH_DAEMON_ARGS="--cpu-prof-md --cpu-prof-dir=/tmp/p" profiles it). */
const DAEMON_ARGS = (process.env.BENCH_DAEMON_ARGS ?? "").split(" ").filter(Boolean);
/** BENCH_BEFORE=<checkout>: another tree's daemon, driven in the same rounds (see the header). */
const BEFORE = process.env.BENCH_BEFORE || undefined;
const CALLS = [
  { name: "eth_blockNumber", params: [] as unknown[] },
  { name: "eth_getBlockByNumber", params: ["latest", false] as unknown[] },
];

const processes: Subprocess[] = [];
const dir = mkdtempSync(join(tmpdir(), "chainwatch-bench-rpc-"));
const anvil = await startAnvil();

try {
  await main();
} finally {
  for (const p of processes) if (p.exitCode === null && p.signalCode === null) p.kill("SIGTERM");
  await Promise.all(processes.map((p) => Promise.race([p.exited, Bun.sleep(3000).then(() => p.kill("SIGKILL"))])));
  await anvil.stop();
  rmSync(dir, { recursive: true, force: true });
}

async function main(): Promise<void> {
  // A few blocks with a transaction each, so getBlockByNumber answers a block with content.
  for (let i = 0; i < 5; i++) await anvil.mined(await anvil.sendEth(anvil.accounts[0], anvil.accounts[1], 1n));
  const daemonPort = freePort();
  const configPath = writeConfig("chainwatch", daemonPort);
  const keys = await createKeys(configPath);
  // The tree before gets a copy of the database (one serve per SQLite file), keys and all.
  const beforePort = BEFORE ? freePort() : 0;
  if (BEFORE) {
    for (const suffix of ["", "-wal"]) {
      const file = join(dir, `chainwatch.db${suffix}`);
      if (existsSync(file)) copyFileSync(file, join(dir, `before.db${suffix}`));
    }
  }
  const beforeConfig = BEFORE ? writeConfig("before", beforePort) : "";
  const daemon = spawn([process.execPath, ...DAEMON_ARGS, join(ROOT, "cli/index.ts"), "serve", "--config", configPath], dir);
  const daemonUrl = `http://127.0.0.1:${daemonPort}`;
  await waitForHealth(`${daemonUrl}/healthz`, daemon);
  const before = BEFORE ? spawn([process.execPath, ...DAEMON_ARGS, join(BEFORE, "cli/index.ts"), "serve", "--config", beforeConfig], dir) : null;
  const beforeUrl = `http://127.0.0.1:${beforePort}`;
  if (before) await waitForHealth(`${beforeUrl}/healthz`, before);
  log(`anvil ${anvil.url}; chainwatch ${daemonUrl}${before ? `; before ${beforeUrl} (${BEFORE})` : ""}; ${ACCOUNTS} accounts; load: ${CONNECTIONS} connections, ${WARMUP_MS} ms warm-up, ${DURATION_MS} ms measured`);

  const barePort = freePort();
  const bare = spawn([process.execPath, join(ROOT, "bench/support/bare-rpc-proxy.ts"), String(barePort), anvil.url], dir);
  const bareUrl = `http://127.0.0.1:${barePort}`;
  await waitForHealth(bareUrl, bare, { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId" }) });
  const elysiaPort = freePort();
  const elysia = spawn([process.execPath, join(ROOT, "bench/support/bare-rpc-proxy.ts"), String(elysiaPort), anvil.url, "elysia"], dir);
  const elysiaUrl = `http://127.0.0.1:${elysiaPort}`;
  await waitForHealth(`${elysiaUrl}/rpc/eth/probe`, elysia, { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId" }) });
  const keysFile = join(dir, "keys.json");
  writeFileSync(keysFile, JSON.stringify(keys));
  const contractPort = freePort();
  const contract = spawn([process.execPath, join(ROOT, "bench/support/bare-rpc-proxy.ts"), String(contractPort), anvil.url, "contract", keysFile], dir);
  const contractUrl = `http://127.0.0.1:${contractPort}`;
  await waitForHealth(`${contractUrl}/rpc/eth/${keys[0]}`, contract, { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId" }) });

  const single = { connections: 1, durationMs: Math.min(DURATION_MS, 3_000), warmupMs: 500 };
  const results = [];
  for (const c of CALLS) {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: c.name, params: c.params });
    const headers = { "Content-Type": "application/json" };
    const directTargets: LoadTarget[] = [{ url: anvil.url, method: "POST", headers, body }];
    const bareTargets: LoadTarget[] = [{ url: bareUrl, method: "POST", headers, body }];
    const elysiaTargets: LoadTarget[] = keys.map((k) => ({ url: `${elysiaUrl}/rpc/eth/${k}`, method: "POST", headers, body }));
    const proxyTargets: LoadTarget[] = keys.map((k) => ({ url: `${daemonUrl}/rpc/eth/${k}`, method: "POST", headers, body }));
    const contractTargets: LoadTarget[] = keys.map((k) => ({ url: `${contractUrl}/rpc/eth/${k}`, method: "POST", headers, body }));
    const beforeTargets: LoadTarget[] = keys.map((k) => ({ url: `${beforeUrl}/rpc/eth/${k}`, method: "POST", headers, body }));
    await expectSameAnswer(directTargets[0], proxyTargets[0]);
    if (before) await expectSameAnswer(directTargets[0], beforeTargets[0]);
    // CPU per call: the serving process, anvil and the load generator, over each measured window.
    // `server`: the serving process, whose CPU is also split by thread (its JavaScript thread, the JIT).
    const measured = async (roles: CpuProbe, targets: LoadTarget[], warmupMs: number, server?: number): Promise<Measured> => {
      const spec = { connections: CONNECTIONS, durationMs: DURATION_MS, warmupMs };
      const cpu = measureLoadCpu({ ...roles, anvil: () => cpuOf(anvil.pid) }, spec, track, server);
      const result = await runLoadInSubprocess({ ...spec, targets }, cpu.track);
      const window = await cpu.window;
      const perCall = (us: number) => Math.round(us / Math.max(1, result.requests));
      return { result, us: cpuPerUnit(window, result.requests), threads: window.threads && { js: perCall(window.threads.js), jit: perCall(window.threads.jit) } };
    };
    const direct: Measured[] = [];
    const bareProxy: Measured[] = [];
    const elysiaProxy: Measured[] = [];
    const contractProxy: Measured[] = [];
    const proxied: Measured[] = [];
    const beforeProxied: Measured[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const warmup = r === 0 ? WARMUP_MS : ROUND_WARMUP_MS;
      direct.push(await measured({}, directTargets, warmup));
      bareProxy.push(await measured({ proxy: () => cpuOf(bare.pid) }, bareTargets, warmup, bare.pid));
      elysiaProxy.push(await measured({ proxy: () => cpuOf(elysia.pid) }, elysiaTargets, warmup));
      contractProxy.push(await measured({ proxy: () => cpuOf(contract.pid) }, contractTargets, warmup, contract.pid));
      // The two trees take turns at going first, so neither always runs right after the contract proxy.
      const mine = () => measured({ chainwatch: () => cpuOf(daemon.pid) }, proxyTargets, warmup, daemon.pid);
      const theirs = (b: Subprocess) => measured({ chainwatch: () => cpuOf(b.pid) }, beforeTargets, warmup, b.pid);
      if (before && r % 2 === 1) beforeProxied.push(await theirs(before));
      proxied.push(await mine());
      if (before && r % 2 === 0) beforeProxied.push(await theirs(before));
      if (ROUNDS > 1)
        log(
          `${c.name} round ${r + 1}/${ROUNDS}: µs per call chainwatch ${proxied[r].us.chainwatch} ${threadsOf(proxied[r])}${before ? `, before ${beforeProxied[r].us.chainwatch} ${threadsOf(beforeProxied[r])}` : ""}, minimal proxy ${bareProxy[r].us.proxy} ${threadsOf(bareProxy[r])}, Elysia proxy ${elysiaProxy[r].us.proxy}, contract proxy ${contractProxy[r].us.proxy} ${threadsOf(contractProxy[r])}; load average ${loadAverage()}`,
        );
    }
    const directOne = await runLoadInSubprocess({ ...single, targets: directTargets }, track);
    const proxiedOne = await runLoadInSubprocess({ ...single, targets: proxyTargets }, track);
    results.push({ method: c.name, direct, bareProxy, elysiaProxy, contractProxy, proxied, beforeProxied, directOne, proxiedOne, load: loadAverage() });
  }
  report(results);
}

/** A daemon's config: its port, its SQLite file `<name>.db` and the run's master key, eth served by anvil. */
function writeConfig(name: string, port: number): string {
  const path = join(dir, `${name}.toml`);
  writeFileSync(
    path,
    [
      "[server]",
      `port = ${port}`,
      "[database]",
      `url = "sqlite://${dir}/${name}.db"`,
      "[secrets]",
      `master_key_file = "${dir}/master.key"`,
      "[networks.eth]",
      'family = "evm"',
      "decimals = 18",
      "get_block_cost = 20",
      `rpc_urls = ["${anvil.url}"]`,
      "",
    ].join("\n"),
  );
  return path;
}

/** chainwatch must answer with the node's bytes (a JSON-RPC error would be a 200 too, and fast). */
async function expectSameAnswer(direct: LoadTarget, proxied: LoadTarget): Promise<void> {
  const send = async (t: LoadTarget) => (await fetch(t.url, { method: "POST", headers: t.headers, body: t.body })).text();
  const [a, b] = [await send(direct), await send(proxied)];
  if (a !== b) throw new Error(`chainwatch answered ${b.slice(0, 200)}, the node ${a.slice(0, 200)}`);
}

/** Accounts on a plan whose rpc_rps and credits never bind during the run. */
async function createKeys(configPath: string): Promise<string[]> {
  const loaded = loadConfig(configPath);
  if (!loaded.ok) throw new Error(loaded.error);
  const ctx = await openContext(loaded.config, { env: {} });
  try {
    const plan = await setPlan(ctx.db, ctx.clock, { name: "bench", slots: 0, rpcRps: 1_000_000_000 });
    if (!plan.ok) throw new Error(plan.error);
    const keys = [];
    for (let i = 0; i < ACCOUNTS; i++) {
      const account = await createAccount(ctx, { name: `bench-${i}`, plan: "bench", credits: 1_000_000_000_000 });
      if (!account.ok) throw new Error(account.error);
      const key = await createApiKey(ctx, { accountId: account.account.id, allowIps: [] });
      if (!key.ok) throw new Error(key.error);
      keys.push(key.key.api_key);
    }
    return keys;
  } finally {
    await ctx.db.destroy();
  }
}

/** One measured window: the load's result, each role's CPU µs a call, and the serving process's by thread. */
type Measured = { result: LoadResult; us: Record<string, number>; threads?: { js: number; jit: number } };

/** "(JS 40, JIT 1)": a serving process's JavaScript thread and JIT compiler threads, µs a call. */
function threadsOf(m: Measured): string {
  return m.threads ? `(JS ${m.threads.js}, JIT ${m.threads.jit})` : "";
}
type Result = { method: string; direct: Measured[]; bareProxy: Measured[]; elysiaProxy: Measured[]; contractProxy: Measured[]; proxied: Measured[]; beforeProxied: Measured[]; directOne: LoadResult; proxiedOne: LoadResult; load: string };

function report(results: Result[]): void {
  /** A role's median CPU µs per call over the rounds. */
  const us = (ms: Measured[], role: string) => Math.round(median(ms.map((m) => m.us[role])));
  const all = (ms: Measured[]) => Math.round(median(ms.map((m) => totalUs(m.us))));
  const row = (name: string, ms: Measured[], role?: string) =>
    `${name.padEnd(44)} ${String(Math.round(median(ms.map((m) => m.result.rps)))).padStart(8)} ${median(ms.map((m) => m.result.p50)).toFixed(2).padStart(8)} ${median(ms.map((m) => m.result.p99)).toFixed(2).padStart(8)} ${String(ms.reduce((n, m) => n + m.result.requests, 0)).padStart(9)} ${String(ms.reduce((n, m) => n + m.result.errors, 0)).padStart(7)}   ${(role ? spread(ms.map((m) => m.us[role])) : "-").padEnd(16)} ${us(ms, "anvil")} / ${us(ms, "load generator")}`;
  const one = (name: string, r: LoadResult) =>
    `${name.padEnd(44)} ${String(r.rps).padStart(8)} ${r.p50.toFixed(2).padStart(8)} ${r.p99.toFixed(2).padStart(8)} ${String(r.requests).padStart(9)} ${String(r.errors).padStart(7)}`;
  console.log("");
  console.log(`${ROUNDS} rounds of ${DURATION_MS} ms: medians of req/s, p50 and p99; calls and errors over every round; CPU µs per call of the serving process, median (lowest–highest round), and of anvil / the load generator`);
  console.log(`${"target".padEnd(44)} ${"req/s".padStart(8)} ${"p50 ms".padStart(8)} ${"p99 ms".padStart(8)} ${"requests".padStart(9)} ${"errors".padStart(7)}   ${"server µs".padEnd(16)} anvil / load generator µs`);
  const summaryJson = [];
  const verdicts: string[] = [];
  let allMet = true;
  for (const r of results) {
    console.log(row(`${r.method} direct to anvil`, r.direct));
    console.log(row(`${r.method} minimal Bun proxy`, r.bareProxy, "proxy"));
    console.log(row(`${r.method} minimal Elysia proxy`, r.elysiaProxy, "proxy"));
    console.log(row(`${r.method} contract proxy`, r.contractProxy, "proxy"));
    console.log(row(`${r.method} through chainwatch`, r.proxied, "chainwatch"));
    if (r.beforeProxied.length > 0) console.log(row(`${r.method} through chainwatch before`, r.beforeProxied, "chainwatch"));
    console.log(one(`${r.method} direct, 1 connection`, r.directOne));
    console.log(one(`${r.method} chainwatch, 1 connection`, r.proxiedOne));
    // Ratios within each round, then their median: the two sides of a round ran seconds apart.
    const hop = r.proxied.map((m, i) => m.us.chainwatch / Math.max(1, r.bareProxy[i].us.proxy));
    const every = r.proxied.map((m, i) => totalUs(m.us) / Math.max(1, totalUs(r.bareProxy[i].us)));
    const rps = r.proxied.map((m, i) => m.result.rps / r.bareProxy[i].result.rps);
    const ofDirect = r.proxied.map((m, i) => m.result.rps / r.direct[i].result.rps);
    const elysiaHop = r.elysiaProxy.map((m, i) => m.us.proxy / Math.max(1, r.bareProxy[i].us.proxy));
    const elysiaRps = r.elysiaProxy.map((m, i) => m.result.rps / r.bareProxy[i].result.rps);
    const contractHop = r.contractProxy.map((m, i) => m.us.proxy / Math.max(1, r.bareProxy[i].us.proxy));
    const ownHop = r.proxied.map((m, i) => m.us.chainwatch / Math.max(1, r.contractProxy[i].us.proxy));
    const contractRps = r.contractProxy.map((m, i) => m.result.rps / r.bareProxy[i].result.rps);
    const added = { p50: r.proxiedOne.p50 - r.directOne.p50, p99: r.proxiedOne.p99 - r.directOne.p99 };
    const [cw, px, cp] = [us(r.proxied, "chainwatch"), us(r.bareProxy, "proxy"), us(r.contractProxy, "proxy")];
    console.log(`  CPU µs per call: chainwatch ${cw}, minimal proxy ${px} (${spread(hop, 2)}× within each round, target <= ${CPU_TARGET}); every process ${all(r.proxied)} against ${all(r.bareProxy)} (${spread(every, 2)}×)`);
    console.log(
      `  stack floor: minimal Elysia proxy ${us(r.elysiaProxy, "proxy")} µs per call (${median(elysiaHop).toFixed(2)}× the Bun proxy's), ${median(elysiaRps).toFixed(2)} of its req/s; chainwatch is ${cw - px} µs above the Bun proxy`,
    );
    console.log(
      `  contract floor: contract proxy ${cp} µs per call = minimal proxy + ${cp - px} for the contract's checks (${spread(contractHop, 2)}×), ${median(contractRps).toFixed(2)} of its req/s; chainwatch ${cw} = contract proxy + ${cw - cp} of its own (${spread(ownHop, 2)}×)`,
    );
    // A serving process's µs per call on one kind of thread, over the rounds.
    const onThread = (ms: Measured[], kind: "js" | "jit") => ms.map((m) => m.threads?.[kind] ?? 0);
    const js = (ms: Measured[]) => Math.round(median(onThread(ms, "js")));
    const jit = (ms: Measured[]) => spread(onThread(ms, "jit"));
    console.log(
      `  by thread: the JavaScript thread chainwatch ${js(r.proxied)}, contract proxy ${js(r.contractProxy)}, minimal proxy ${js(r.bareProxy)} µs per call; chainwatch's JIT compiling ${jit(r.proxied)} (the proxies' ${jit(r.contractProxy)} and ${jit(r.bareProxy)}); the rest is Bun's HTTP client and the collector`,
    );
    if (r.beforeProxied.length > 0) {
      const against = r.proxied.map((m, i) => m.us.chainwatch / Math.max(1, r.beforeProxied[i].us.chainwatch));
      const beforeHop = r.beforeProxied.map((m, i) => m.us.chainwatch / Math.max(1, r.bareProxy[i].us.proxy));
      console.log(
        `  before (${BEFORE}): ${us(r.beforeProxied, "chainwatch")} µs per call (${spread(beforeHop, 2)}× the minimal proxy's); this tree / before ${spread(against, 2)}× within each round`,
      );
    }
    console.log(
      `  req/s: chainwatch / minimal proxy ${spread(rps, 2)} (target >= ${RPS_TARGET}), / direct ${median(ofDirect).toFixed(2)}; added latency, 1 connection: p50 ${added.p50.toFixed(2)} ms (target < 1 ms), p99 ${added.p99.toFixed(2)} ms; load average ${r.load}`,
    );
    const missed: string[] = [];
    if (median(hop) > CPU_TARGET)
      missed.push(
        `CPU ${median(hop).toFixed(2)}× the minimal proxy's (target <= ${CPU_TARGET}): chainwatch ${cw} µs a call against ${px}; the contract's checks (key, depth-bounded parse, a rebuilt call, policy, rate window, credits, the answer bounded, parsed and judged to bill it) put their least implementation at ${median(contractHop).toFixed(2)}× (${cp} µs), and chainwatch is ${cw - cp} µs above that (${median(ownHop).toFixed(2)}×), ${js(r.proxied) - js(r.contractProxy)} of them on its JavaScript thread and ${Math.round(median(onThread(r.proxied, "jit")))} compiling (docs/benchmarks.md)`,
      );
    if (median(rps) < RPS_TARGET)
      missed.push(
        `${median(rps).toFixed(2)} of the proxy's req/s (target >= ${RPS_TARGET}): anvil, the load generator and the server share the ${navigator.hardwareConcurrency} cores, so req/s follows every process's CPU per call, ${all(r.proxied)} µs through chainwatch against ${all(r.bareProxy)} through the proxy (anvil ${us(r.proxied, "anvil")} and ${us(r.bareProxy, "anvil")} of them); the contract proxy reaches ${median(contractRps).toFixed(2)}`,
      );
    if (added.p50 >= 1) missed.push(`added p50 latency ${added.p50.toFixed(2)} ms (target < 1 ms)`);
    allMet &&= missed.length === 0;
    verdicts.push(missed.length === 0 ? `${r.method} met (${median(hop).toFixed(2)}× CPU, ${median(rps).toFixed(2)} req/s)` : `${r.method} missed: ${missed.join("; ")}`);
    summaryJson.push({
      method: r.method,
      direct: r.direct.map((m) => m.result),
      bare_proxy: r.bareProxy.map((m) => m.result),
      elysia_proxy: r.elysiaProxy.map((m) => m.result),
      contract_proxy: r.contractProxy.map((m) => m.result),
      proxied: r.proxied.map((m) => m.result),
      ...(r.beforeProxied.length > 0 ? { before: r.beforeProxied.map((m) => m.result), before_cpu_us_per_call: r.beforeProxied.map((m) => m.us) } : {}),
      direct_one: r.directOne,
      proxied_one: r.proxiedOne,
      cpu_us_per_call: { direct: r.direct.map((m) => m.us), bare_proxy: r.bareProxy.map((m) => m.us), elysia_proxy: r.elysiaProxy.map((m) => m.us), contract_proxy: r.contractProxy.map((m) => m.us), proxied: r.proxied.map((m) => m.us) },
      threads_us_per_call: { bare_proxy: r.bareProxy.map((m) => m.threads), contract_proxy: r.contractProxy.map((m) => m.threads), proxied: r.proxied.map((m) => m.threads) },
      contract_cpu_ratio: summary(contractHop),
      own_cpu_ratio: summary(ownHop),
      cpu_ratio: summary(hop),
      cpu_ratio_all: summary(every),
      ratio: summary(rps),
      direct_ratio: summary(ofDirect),
      added_p50_ms: Number(added.p50.toFixed(2)),
      added_p99_ms: Number(added.p99.toFixed(2)),
    });
    if ([...r.direct, ...r.bareProxy, ...r.elysiaProxy, ...r.contractProxy, ...r.proxied, ...r.beforeProxied].some((m) => m.result.errors > 0) || r.directOne.errors > 0 || r.proxiedOne.errors > 0) process.exitCode = 1;
  }
  console.log(JSON.stringify({ bench: "rpc", connections: CONNECTIONS, duration_ms: DURATION_MS, rounds: ROUNDS, accounts: ACCOUNTS, results: summaryJson }));
  console.log(`${allMet ? "targets met" : "target missed"} (medians of ${ROUNDS} rounds): ${verdicts.join(" | ")}`);
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
  console.log(`bench:rpc ${line}`);
}
