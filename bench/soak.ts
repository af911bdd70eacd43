// Soak benchmark (not a test): `bun run bench:soak`, 60 minutes unless SOAK_MINUTES says otherwise.
//
// One `serve` subprocess on SQLite under a steady mixed load from this process: 200 signed API
// requests a second (GET /v1/address-watch/events, each signed when sent), 5 ingested blocks a
// second each paying a watched address twice (two webhooks a block), 100 /rpc calls a second
// (eth_blockNumber, forwarded to a stub JSON-RPC node in this process) and a receiver that answers
// 1 % of webhooks with a 500 (they are retried). Retention is made short: this process runs the
// daemon's retention step (src/upkeep/retention.ts, the same code) against the same file every
// minute with a clock one day ahead less SOAK_RETENTION_SECONDS (default 180), so rows older than
// that are pruned while the load runs, and the space is given back.
//
// Every 10 s (SOAK_SAMPLE_SECONDS) it samples the daemon's RSS (/proc), open file descriptors, the
// database and WAL file sizes, the API p99 and the delivery lag p99 (ingest POST to the webhook's
// arrival) since the last sample, and the pending deliveries (the daemon's own /metrics gauge),
// prints the table, then the slope of each over the run after the warm-up (the first 10 minutes,
// or the first third of a shorter run). Targets: RSS < 0.1 MB/min, database size flat, no latency
// drift.
import type { Subprocess } from "bun";
import { createHash, createHmac } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAccount } from "../src/accounts/accounts.ts";
import { createApiKey } from "../src/accounts/api-keys.ts";
import { setPlan } from "../src/accounts/plans.ts";
import { loadConfig } from "../src/config/load.ts";
import { openContext } from "../src/daemon.ts";
import { runRetention } from "../src/upkeep/retention.ts";
import { addWatch } from "../src/watch/watches.ts";
import { loadAverage } from "./support/cpu.ts";
import { spawnDaemons, stopAll, writeDaemonConfig } from "./support/daemons.ts";
import { killOnInterrupt } from "./support/interrupt.ts";
import { pointWebhook } from "./support/endpoint.ts";

const MINUTES = Number(process.env.SOAK_MINUTES ?? 60);
const RETENTION_SECONDS = Number(process.env.SOAK_RETENTION_SECONDS ?? 180);
const SAMPLE_MS = Number(process.env.SOAK_SAMPLE_SECONDS ?? 10) * 1000;
const API_RPS = 200;
const BLOCKS_PER_SECOND = 5;
const RPC_RPS = 100;
const FAILURE_RATE = 0.01;
const INGEST_TOKEN = "soak-token";
const WATCHED = "0x52908400098527886e0f7030069857d2e4169ee7";
const SENDER = "0x8617e340b3d01fa5f11f306f4090fd50e238070d";
const DAY_MS = 86_400_000;

type Sample = {
  minute: number;
  rssMb: number;
  fds: number;
  dbMb: number;
  walMb: number;
  apiP99: number;
  lagP99: number;
  pending: number;
  webhooks: number;
  apiErrors: number;
};

const procs: Subprocess[] = [];
killOnInterrupt(procs);
const dir = mkdtempSync(join(tmpdir(), "chainwatch-soak-"));
const dbPath = join(dir, "chainwatch.db");

// --- A stub JSON-RPC node and the webhook receiver, in this process ---
const node = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    const call = (await req.json()) as { id: number };
    return Response.json({ jsonrpc: "2.0", id: call.id, result: "0x1234" });
  },
});
const sentAt = new Map<string, number>();
let lags: number[] = [];
let webhooks = 0;
const receiver = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    const body = await req.text();
    webhooks++;
    if (Math.random() < FAILURE_RATE) return new Response("flaky", { status: 500 });
    const tx = /"tx_hash":"([^"]+)"/.exec(body)?.[1];
    const at = tx ? sentAt.get(tx) : undefined;
    if (at !== undefined) {
      lags.push(performance.now() - at);
      sentAt.delete(tx as string);
    }
    return new Response("ok");
  },
});

const configPath = writeDaemonConfig(dir, `sqlite://${dbPath}`, [
  "[ingest]",
  `token = "${INGEST_TOKEN}"`,
  "[rate_limit]",
  "per_key_rps = 10000",
  "[delivery]",
  "allow_private_targets = true",
  "backoff_seconds = [1, 2, 5]",
  "retention_days = 1",
  "[events]",
  "retention_days = 1",
  "[networks.eth]",
  'family = "evm"',
  "decimals = 18",
  `rpc_urls = ["http://127.0.0.1:${node.port}/"]`,
]);

const loaded = loadConfig(configPath);
if (!loaded.ok) throw new Error(loaded.error);
const setup = await openContext(loaded.config, { env: {} });
const plan = await setPlan(setup.db, setup.clock, { name: "soak", slots: 10, rpcRps: 10_000 });
if (!plan.ok) throw new Error(plan.error);
const account = await createAccount(setup, { name: "soak", plan: "soak", credits: 1_000_000_000 });
if (!account.ok) throw new Error(account.error);
const key = await createApiKey(setup, { accountId: account.account.id, allowIps: [] });
if (!key.ok) throw new Error(key.error);
const apiKey = key.key;
await addWatch(setup.db, { accountId: account.account.id, network: "eth", address: WATCHED, now: setup.clock.now() });
await pointWebhook(setup.db, account.account.id, `http://127.0.0.1:${receiver.port}/hook`);
await setup.db.destroy();

const [daemon] = await spawnDaemons(configPath, 1, (p) => procs.push(p));
const pid = daemon.proc.pid;

// --- Load: paced loops, each a request every 1000/rate ms ---
let running = true;
let apiLatencies: number[] = [];
let apiErrors = 0;
let firstApiError: string | null = null;
// The signed path has no query string (docs/api.md).
const API_PATH = "/v1/address-watch/events";
function signed(path: string): Record<string, string> {
  const ts = String(Math.floor(Date.now() / 1000));
  const bodyHash = createHash("sha256").update("").digest("hex");
  const signature = createHmac("sha256", apiKey.secret).update(`${ts}\nGET\n${path}\n${bodyHash}`).digest("hex");
  return { "X-Api-Key": apiKey.api_key, "X-Timestamp": ts, "X-Signature": signature };
}

async function paced(rate: number, send: (n: number) => Promise<void>): Promise<void> {
  const start = performance.now();
  const inFlight = new Set<Promise<void>>();
  for (let n = 0; running; n++) {
    const due = start + (n * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await Bun.sleep(wait);
    // Bounded: a stalled daemon slows the load instead of piling up requests.
    if (inFlight.size >= 256) await Promise.race(inFlight);
    const p = send(n).catch(() => {});
    inFlight.add(p);
    p.finally(() => inFlight.delete(p));
  }
  await Promise.all(inFlight);
}

const api = paced(API_RPS, async () => {
  const t0 = performance.now();
  const res = await fetch(`${daemon.url}${API_PATH}?limit=10`, { headers: signed(API_PATH) }).catch(() => null);
  if (res) await res.arrayBuffer();
  apiLatencies.push(performance.now() - t0);
  if (!res || res.status >= 300) {
    if (apiErrors === 0 && firstApiError === null) firstApiError = res ? `${res.status}` : "no answer";
    apiErrors++;
  }
});
let height = 30_000_000;
const ingest = paced(BLOCKS_PER_SECOND, async () => {
  const h = height++;
  const txs = [0, 1].map((i) => `0x${(h * 2 + i).toString(16).padStart(64, "0")}`);
  const block = {
    network: "eth",
    height: h,
    hash: `0x${h.toString(16).padStart(64, "0")}`,
    parent_hash: `0x${(h - 1).toString(16).padStart(64, "0")}`,
    timestamp: Math.floor(Date.now() / 1000),
    transactions: txs.map((hash) => ({ hash, from: SENDER, to: WATCHED, value: "1000000000000000000" })),
  };
  const t0 = performance.now();
  for (const tx of txs) sentAt.set(tx, t0);
  const res = await fetch(`${daemon.url}/ingest/blocks`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${INGEST_TOKEN}` },
    body: JSON.stringify(block),
  });
  await res.arrayBuffer();
});
const rpcBody = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] });
const rpc = paced(RPC_RPS, async () => {
  const res = await fetch(`${daemon.url}/rpc/eth/${apiKey.api_key}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: rpcBody });
  await res.arrayBuffer();
});

// --- Retention, shortened: the daemon's own step, run from here with a clock a day ahead ---
const shifted = { now: () => Date.now() + DAY_MS - RETENTION_SECONDS * 1000, monotonic: () => performance.now() };
const pruneCtx = await openContext(loaded.config, { env: {}, clock: shifted });
let pruned = 0;
const retention = setInterval(async () => {
  const report = await runRetention(pruneCtx).catch((e) => {
    console.error(`retention failed: ${String(e)}`);
    return null;
  });
  if (report) pruned += (report.deliveries ?? 0) + (report.events ?? 0) + (report.blocks ?? 0);
}, 60_000);

// --- Sampling ---
const p99 = (xs: number[]) => (xs.length === 0 ? 0 : [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))]);
const fileMb = (path: string) => {
  try {
    return statSync(path).size / 1_048_576;
  } catch {
    return 0;
  }
};
const rssMb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
async function pendingGauge(): Promise<number> {
  const text = await (await fetch(`${daemon.url}/metrics`)).text();
  return Number(/^chainwatch_deliveries\{state="pending"\} (\d+)/m.exec(text)?.[1] ?? Number.NaN);
}

const samples: Sample[] = [];
const began = Date.now();
const header = "minute   rss MB  fds   db MB  wal MB  api p99 ms  lag p99 ms  pending  webhooks  api errors";
console.log(`soak: ${MINUTES} min, retention ${RETENTION_SECONDS} s, ${API_RPS} API req/s, ${BLOCKS_PER_SECOND} blocks/s, ${RPC_RPS} /rpc/s; load ${loadAverage()}`);
console.log(header);
while (Date.now() - began < MINUTES * 60_000) {
  await Bun.sleep(SAMPLE_MS);
  const s: Sample = {
    minute: (Date.now() - began) / 60_000,
    rssMb: rssMb(),
    fds: readdirSync(`/proc/${pid}/fd`).length,
    dbMb: fileMb(dbPath),
    walMb: fileMb(`${dbPath}-wal`),
    apiP99: p99(apiLatencies),
    lagP99: p99(lags),
    pending: await pendingGauge(),
    webhooks,
    apiErrors,
  };
  apiLatencies = [];
  lags = [];
  webhooks = 0;
  apiErrors = 0;
  samples.push(s);
  console.log(
    [
      s.minute.toFixed(1).padStart(6),
      s.rssMb.toFixed(1).padStart(8),
      String(s.fds).padStart(4),
      s.dbMb.toFixed(1).padStart(7),
      s.walMb.toFixed(1).padStart(7),
      s.apiP99.toFixed(1).padStart(11),
      s.lagP99.toFixed(1).padStart(11),
      String(s.pending).padStart(8),
      String(s.webhooks).padStart(9),
      String(s.apiErrors).padStart(11),
    ].join(" "),
  );
}

running = false;
clearInterval(retention);
await Promise.all([api, ingest, rpc]);
await pruneCtx.db.destroy();
await stopAll(procs);
node.stop(true);
receiver.stop(true);

// --- Slopes after the warm-up ---
const warmup = Math.min(10, MINUTES / 3);
const steady = samples.filter((s) => s.minute >= warmup);
function slope(pick: (s: Sample) => number): number {
  const n = steady.length;
  if (n < 2) return Number.NaN;
  const mx = steady.reduce((a, s) => a + s.minute, 0) / n;
  const my = steady.reduce((a, s) => a + pick(s), 0) / n;
  const num = steady.reduce((a, s) => a + (s.minute - mx) * (pick(s) - my), 0);
  const den = steady.reduce((a, s) => a + (s.minute - mx) ** 2, 0);
  return num / den;
}
console.log("");
console.log(`slopes over minutes ${warmup.toFixed(1)}–${MINUTES} (per minute):`);
console.log(`  RSS ${slope((s) => s.rssMb).toFixed(3)} MB/min (target < 0.1)`);
console.log(`  database ${slope((s) => s.dbMb).toFixed(3)} MB/min, WAL ${slope((s) => s.walMb).toFixed(3)} MB/min`);
console.log(`  fds ${slope((s) => s.fds).toFixed(3)}/min`);
console.log(`  API p99 ${slope((s) => s.apiP99).toFixed(3)} ms/min, delivery lag p99 ${slope((s) => s.lagP99).toFixed(3)} ms/min`);
console.log(`  pending ${slope((s) => s.pending).toFixed(3)}/min`);
console.log(`rows pruned during the run: ${pruned}; first API error: ${firstApiError ?? "none"}; load at the end ${loadAverage()}`);
rmSync(dir, { recursive: true, force: true });
