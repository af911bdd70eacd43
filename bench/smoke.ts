#!/usr/bin/env bun
// The benches' smoke run (not a benchmark): `bun bench/smoke.ts`, run by `.ci/run`. Every
// `bench:*` script of package.json runs once at a tiny size (a few blocks, a few hundred requests,
// a second or two of load) and must exit 0 and print its figure lines; the figures themselves are
// never judged (a loaded CI machine makes any threshold flaky). So a bench that no longer runs
// fails CI the day it breaks, not the day someone next wants its figures.
//
// The benches come from package.json, so a new one cannot be left out: a `bench:*` script with no
// entry in SMALL fails the run, saying to add one. An entry whose script is not (or no longer) in
// package.json is skipped with a note. Each bench runs as `bun run <script>` in its own process
// group, one after another (they measure CPU and share two cores), killed with its children after
// TIME_LIMIT_MS. `bun bench/smoke.ts bench:api bench:rpc` runs only those. The PostgreSQL
// variants (`--database postgres`, BENCH_DATABASE=postgres) are left out for time: bench:limits
// runs on a throwaway cluster of the same support code every time.
import type { Subprocess } from "bun";
import { readFileSync } from "node:fs";
import { join } from "node:path";

type Small = {
  /** The knobs that make it tiny (the bench's own environment variables). */
  env: Record<string, string>;
  /** Lines the bench prints once it measured something: each must match a line of its output. */
  prints: RegExp[];
};

/** The tiny settings of each bench, and the figure lines it must print. */
const SMALL: Record<string, Small> = {
  "bench:api": {
    env: { BENCH_DURATION_MS: "500", BENCH_WARMUP_MS: "200", BENCH_CONNECTIONS: "4", BENCH_ROUNDS: "2" },
    // The verdict is the last line.
    prints: [/^CPU µs per request: daemon \d+, bare server \d+/m, /^signed \/ bare = \d+\.\d+ req\/s/m, /(^|\n)targets? (met|missed) \(medians of 2 rounds\): [^\n]+\n?$/],
  },
  "bench:ingest": {
    env: { BENCH_ACCOUNTS: "10", BENCH_WATCHES_PER_ACCOUNT: "10", BENCH_POSTS: "5", BENCH_BLOCKS_PER_POST: "2" },
    prints: [/^CPU µs\/tx +\d+/m, /^chainwatch +\d+ tx\/s/m],
  },
  "bench:deliver": {
    env: { BENCH_DELIVERIES: "300", BENCH_LATENCY_SAMPLES: "10", BENCH_ROUNDS: "2" },
    prints: [/^CPU µs per delivery: +\d+/m, /^contract floor: +contract loop \d+/m, /^over the outbox: +contract loop over the outbox's tables \d+/m, /^by thread \(µs\): +daemon \(JS \d+, JIT \d+, GC \d+, other \d+\), durable loop \(JS \d+/m, /^daemon throughput: +\d+ deliveries\/s/m, /^ingest→receipt: +p50 \d+\.\d ms/m],
  },
  "bench:deliver-core": {
    // Over a socket to the receiver process: the stub's path is the same loops with a function for `fetch`.
    env: { BENCH_DELIVERIES: "300", BENCH_ROUNDS: "2", BENCH_RECEIVER: "1" },
    prints: [/^CPU µs per delivery \(median, min–max\): daemon \d+\.\d/m, /^daemon \/ contract loop \d+\.\d+/m, /^over the outbox's tables: contract loop, outbox \/ contract loop \d+\.\d+/m],
  },
  "bench:outbox-shapes": {
    env: { BENCH_DELIVERIES: "300", BENCH_ROUNDS: "2" },
    prints: [/^ {2}narrow queue, outcome rows +\d+\.\d/m, /^ {2}durable loop +\d+\.\d/m, /^the cheapest store that keeps the delivery log: /m],
  },
  "bench:cabinet": {
    env: { BENCH_REQUESTS: "50" },
    prints: [/^overview: \d+ bytes of HTML.* TTFB p50 \d+\.\d+ ms vs bare \d+\.\d+ ms/m],
  },
  "bench:rpc": {
    env: { BENCH_DURATION_MS: "300", BENCH_WARMUP_MS: "100", BENCH_CONNECTIONS: "4", BENCH_ROUNDS: "2" },
    // The verdict is the last line.
    prints: [/^ {2}CPU µs per call: chainwatch \d+, minimal proxy \d+/m, /^ {2}contract floor: contract proxy \d+ µs per call/m, /(^|\n)targets? (met|missed) \(medians of 2 rounds\): [^\n]+\n?$/],
  },
  "bench:retention": {
    env: { BENCH_OLD: "3000", BENCH_RECENT: "1000", BENCH_PAYMENT: "500", BENCH_ROUNDS: "1" },
    prints: [/^CPU ms per 1,000 deliveries pruned/m, /^chainwatch \/ bare loop \d+\.\d+× in CPU/m],
  },
  "bench:rpc-core": {
    env: { BENCH_CALLS: "400", BENCH_ROUNDS: "2" },
    prints: [/^eth_blockNumber: CPU µs per call \(median, min–max\): chainwatch \d+\.\d/m, /^eth_getBlockByNumber: CPU µs per call/m, /^ {2}chainwatch \/ minimal proxy \d+\.\d+/m],
  },
  // The chain is built and cached in .bench/ on the first run, as at full size.
  "bench:follow": {
    env: { BENCH_BLOCKS: "5", BENCH_TX_PER_BLOCK: "4", BENCH_LAG_SAMPLES: "2", BENCH_ROUNDS: "2" },
    prints: [/^CPU µs\/block [\d,]+ \(/m, /^ratio +\d+\.\d+ \(\d+\.\d+–\d+\.\d+\) of the bare loop/m, /^lag +p50 \d+ ms/m],
  },
  "bench:follow-traces": {
    env: { BENCH_BLOCKS: "5", BENCH_TX_PER_BLOCK: "4", BENCH_LAG_SAMPLES: "2", BENCH_ROUNDS: "2" },
    prints: [/^CPU µs\/block [\d,]+ .*; traces debug$/m, /^ratio +\d+\.\d+ \(\d+\.\d+–\d+\.\d+\) of the bare loop/m],
  },
  "bench:follow-tron": {
    env: { BENCH_BLOCKS: "5", BENCH_TX_PER_BLOCK: "10", BENCH_LAG_SAMPLES: "2", BENCH_ROUNDS: "2" },
    prints: [/^daemon CPU +[\d,]+ \(.*\) µs per block/m, /^ratio +\d+\.\d+ \(\d+\.\d+–\d+\.\d+\) of the bare loop/m, /^lag +p50 \d+ ms/m],
  },
  // The chain is built and cached in .bench/ on the first run, as at full size.
  "bench:follow-btc": {
    env: { BENCH_BLOCKS: "3", BENCH_TX_PER_BLOCK: "3", BENCH_LAG_SAMPLES: "2" },
    prints: [/^daemon CPU +[\d,]+ µs per block/m, /^threads +daemon, from its first stored block: JS thread [\d,]+, JIT [\d,]+/m, /^ratio +\d+\.\d+ of the bare loop/m, /^lag +p50 \d+ ms/m],
  },
  // Starts its own PostgreSQL cluster.
  "bench:limits": {
    env: { BENCH_SECONDS: "1" },
    prints: [/^limit 1000\/s, lease limit\/50, merged, 16 callers +\d+\.\d+ +\d+/m, /^refused after the budget is spent.*: \d+\.\d+ µs\/call/m],
  },
  "bench:soak": {
    env: { SOAK_MINUTES: "0.1", SOAK_SAMPLE_SECONDS: "1" },
    prints: [/^ {2}RSS -?\d+\.\d+ MB\/min/m, /^rows pruned during the run: \d+/m],
  },
  "bench:watch-batch": {
    env: { BENCH_ADDRESSES: "1500", BENCH_SINGLE: "20" },
    prints: [/^batch: +\d+ addresses in .* \d+ µs CPU per address/m, /^single: +\d+ addresses in .* \d+ µs CPU per address/m],
  },
  // Builds two binaries and the floor's first (a few seconds).
  "bench:startup": {
    env: { BENCH_ROUNDS: "1", BENCH_STARTS: "1" },
    prints: [/^serve: +CPU ms a start: source \d+ \(\d+\.\d×\), binary \d+/m, /^start-up: the binary serves after \d+ ms of CPU/m],
  },
  "bench:orders": {
    env: { BENCH_ORDERS: "20" },
    prints: [/^ {2}given address +\d+ µs CPU per order/m, /^ {2}btc wpkh +\d+ µs CPU per address/m],
  },
  "bench:checkout": {
    env: { BENCH_ORDERS: "20", BENCH_VIEWERS: "10", BENCH_REQUESTS: "300", BENCH_STREAMS: "20", BENCH_ROUNDS: "2" },
    prints: [/^CPU µs per page view: daemon \d+/m, /^CPU µs per stream update: daemon \d+/m, /^block → status on every stream:/m],
  },
  // A fresh daemon for each of its cases; BENCH_ROUNDS=1 sends each case's requests once.
  "bench:hostile": {
    env: { BENCH_CONCURRENCY: "5", BENCH_BODY_BYTES: "65536", BENCH_ROUNDS: "1", BENCH_ONLY: "addresses · bad signature|/rpc/" },
    prints: [/CPU µs\/req/m],
  },
};

const ROOT = join(import.meta.dir, "..");
/** A guard against a bench that hangs, not a speed limit: each takes seconds here, the slowest well under a minute. */
const TIME_LIMIT_MS = 300_000;
/** After SIGTERM, how long a bench's clean-up (its daemons, its PostgreSQL cluster) may take before SIGKILL. */
const TERM_GRACE_MS = 10_000;

type Outcome = { name: string; ok: boolean; seconds: number; note: string };

// A bench in a group of its own misses the terminal's Ctrl-C: it is passed on.
let running: Subprocess | null = null;
let exitOnInterrupt: number | null = null;
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.once(signal, async () => {
    exitOnInterrupt = signal === "SIGINT" ? 130 : 143;
    if (running) await endGroup(running);
    process.exit(exitOnInterrupt);
  });

/** SIGTERM to the bench's process group (the bench cleans up after itself on it), SIGKILL if it is still there after TERM_GRACE_MS. */
async function endGroup(proc: Subprocess): Promise<void> {
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-proc.pid, signal);
    } catch {}
  };
  signalGroup("SIGTERM");
  let timer: Timer | undefined;
  await Promise.race([proc.exited, new Promise((resolve) => (timer = setTimeout(resolve, TERM_GRACE_MS)))]);
  clearTimeout(timer);
  signalGroup("SIGKILL");
  await proc.exited;
}

/** A pattern as written (Bun escapes µ and → in a RegExp's source). */
const shown = (line: RegExp) => String(line).replace(/\\u([0-9a-fA-F]{4})/g, (_, hex) => String.fromCharCode(Number.parseInt(hex, 16)));

/** Runs one bench small: exit 0 and every figure line printed, within TIME_LIMIT_MS. */
async function runSmall(name: string, small: Small): Promise<Outcome> {
  const started = performance.now();
  const proc = Bun.spawn([process.execPath, "run", name], {
    cwd: ROOT,
    env: { ...process.env, ...small.env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    // Its own process group: a bench that hangs is ended with every process it started.
    detached: true,
  });
  running = proc;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    endGroup(proc);
  }, TIME_LIMIT_MS);
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  const code = await proc.exited;
  clearTimeout(timer);
  running = null;
  const seconds = (performance.now() - started) / 1000;
  const missing = small.prints.filter((line) => !line.test(out));
  const failure = timedOut
    ? `did not finish within ${TIME_LIMIT_MS / 1000} s`
    : code !== 0
      ? `exited with code ${code}`
      : missing.length > 0
        ? `printed no line matching ${missing.map(shown).join(", ")}`
        : null;
  if (failure === null) {
    // The first figure line, to show what it measured.
    const figure = out.split("\n").find((l) => small.prints[0].test(l)) ?? "";
    return { name, ok: true, seconds, note: figure.trim() };
  }
  const tail = (text: string) => text.trimEnd().split("\n").slice(-40).join("\n");
  return { name, ok: false, seconds, note: `${failure}\n--- stdout (end) ---\n${tail(out)}\n--- stderr (end) ---\n${tail(err)}` };
}

const scripts = Object.keys((JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts);
const benches = scripts.filter((s) => s.startsWith("bench:"));
const only = process.argv.slice(2);
for (const name of only) if (!benches.includes(name)) throw new Error(`${name} is not a bench:* script of package.json`);

const outcomes: Outcome[] = [];
for (const name of Object.keys(SMALL)) if (!benches.includes(name)) console.log(`smoke: ${name} is not in package.json: skipped`);
const began = performance.now();
for (const name of only.length > 0 ? only : benches) {
  const small = SMALL[name];
  if (!small) {
    const outcome = { name, ok: false, seconds: 0, note: `has no small settings: add its tiny knobs and the figure lines it prints to SMALL in bench/smoke.ts` };
    console.log(`smoke: ${name} FAILED: ${outcome.note}`);
    outcomes.push(outcome);
    continue;
  }
  const outcome = await runSmall(name, small);
  // A bench the signal ended has not failed: the run stops here.
  if (exitOnInterrupt !== null) process.exit(exitOnInterrupt);
  console.log(`smoke: ${name} ${outcome.ok ? "ok" : "FAILED"} in ${outcome.seconds.toFixed(1)} s: ${outcome.note}`);
  outcomes.push(outcome);
}
const failed = outcomes.filter((o) => !o.ok);
console.log(`smoke: ${outcomes.length - failed.length} of ${outcomes.length} benches ran small in ${((performance.now() - began) / 1000).toFixed(1)} s`);
if (failed.length > 0) {
  console.log(`smoke: FAILED: ${failed.map((o) => o.name).join(", ")}`);
  process.exit(1);
}
