// Checkout pages benchmark (not a test): `bun run bench:checkout`.
//
// A `serve` subprocess over a fresh SQLite file with BENCH_ORDERS payment orders, then:
// 1. live updates: BENCH_STREAMS Server-Sent Event streams (raw sockets, spread over the orders),
//    the daemon's memory per open stream (resident memory before and after, on a daemon that has
//    served one view of each page and nothing else), then BENCH_ROUNDS blocks through POST
//    /ingest/blocks — the first pays every order a part, each later one only moves the tip, so every
//    stream's "k of n" changes every round — and the time from each block's POST to its event on
//    every stream, with the daemon's CPU µs per stream update;
// 2. page views: BENCH_REQUESTS requests of the orders' checkout pages from BENCH_VIEWERS concurrent
//    viewers (keep-alive fetch loops), after one view of each page (which makes its QR code);
//    latency p50/p99 and the daemon's CPU µs per view (from /proc), and the same for unknown tokens.
// Knobs for a tiny run: BENCH_ORDERS=20 BENCH_VIEWERS=10 BENCH_REQUESTS=300 BENCH_STREAMS=20 BENCH_ROUNDS=2.
// BENCH_BACKLOG=N adds N other orders of the account, each paid once at height 3 (after the viewed
// orders' payments) and, like every payment here (confirmations = 1000), not yet confirmed: a store
// busy with payments waiting for their confirmations, which no page view reads.
import { createWalletDerivers } from "../src/payments/wallets/derivers.ts";
import type { Subprocess } from "bun";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAccount } from "../src/accounts/accounts.ts";
import { setPlan } from "../src/accounts/plans.ts";
import { loadConfig } from "../src/config/load.ts";
import { openContext } from "../src/daemon.ts";
import { createOrder } from "../src/payments/create-order.ts";
import { cpuOf } from "./support/cpu.ts";
import { spawnDaemons, stopAll, writeDaemonConfig } from "./support/daemons.ts";

const ORDERS = Number(process.env.BENCH_ORDERS ?? 200);
const VIEWERS = Number(process.env.BENCH_VIEWERS ?? 200);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20_000);
const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 0);
const INGEST_TOKEN = "bench-ingest-token";
// Confirmations far above the rounds: every block changes every stream's "k of n".
const CONFIRMATIONS = 1000;

const processes: Subprocess[] = [];
const dir = mkdtempSync(join(tmpdir(), "chainwatch-bench-checkout-"));

try {
  await main();
} finally {
  await stopAll(processes);
  rmSync(dir, { recursive: true, force: true });
}

type Order = { token: string; address: string };

async function main(): Promise<void> {
  const configPath = writeDaemonConfig(dir, `sqlite://${dir}/chainwatch.db`, [
    "[ingest]",
    `token = "${INGEST_TOKEN}"`,
    "[checkout]",
    "per_ip_rps = 1000000",
    "max_streams_per_ip = 1000000",
    "max_streams = 1000000",
    "[networks.eth]",
    `confirmations = ${CONFIRMATIONS}`,
  ]);
  const orders = await seedOrders(configPath);
  const [daemon] = await spawnDaemons(configPath, 1, (p) => processes.push(p));
  const pid = daemon.proc.pid;
  const base = daemon.url;
  await ingest(base, block(1, []));

  // The first view of each page makes its QR code (cached after that).
  const cold = await sequential(orders.map((o) => `${base}/pay/${o.token}`));

  // 1. Live updates, on a daemon that has served little else yet (its memory is what streams add).
  await Bun.sleep(1000);
  const rssBefore = await steadyRssKb(pid);
  const streams = await openStreams(base, orders, STREAMS);
  await Promise.all(streams.map((s) => s.waitFor(1)));
  await Bun.sleep(1000);
  const rssOpen = await steadyRssKb(pid);
  const latencies: number[] = [];
  const posts: number[] = [];
  const cpu0 = cpuOf(pid);
  for (let round = 1; round <= ROUNDS; round++) {
    const txs = round === 1 ? orders.map((o, i) => ({ hash: hash(0xa000_0000 + i), from: `0x${"1".repeat(40)}`, to: o.address, value: "1" })) : [];
    const t0 = performance.now();
    await ingest(base, block(round + 1, txs));
    posts.push(performance.now() - t0);
    const arrivals = await Promise.all(streams.map((s) => s.waitFor(round + 1)));
    for (const at of arrivals) latencies.push(at - t0);
  }
  const updateCpuMs = cpuOf(pid) - cpu0;
  for (const s of streams) s.close();

  // 2. Page views, then unknown tokens, each from VIEWERS concurrent viewers.
  const pages = await viewers(orders.map((o) => `${base}/pay/${o.token}`), REQUESTS, pid, 200);
  const missing = await viewers(
    Array.from({ length: 50 }, (_, i) => `${base}/pay/${i.toString(36).padStart(32, "A")}`),
    Math.max(VIEWERS, Math.floor(REQUESTS / 4)),
    pid,
    404,
  );

  const pct = (xs: number[], q: number) => {
    const sorted = [...xs].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  };
  const perStreamKb = (rssOpen - rssBefore) / STREAMS;
  const updateUs = Math.round((updateCpuMs * 1000) / (STREAMS * ROUNDS));
  console.log("");
  console.log(`orders ${ORDERS}, viewers ${VIEWERS}, page views ${REQUESTS}, streams ${STREAMS}, blocks ${ROUNDS}`);
  console.log(`first view of a page (QR code made): p50 ${pct(cold, 0.5).toFixed(2)} ms, p99 ${pct(cold, 0.99).toFixed(2)} ms (one at a time)`);
  console.log(`page views at ${VIEWERS} concurrent viewers: p50 ${pages.p50.toFixed(2)} ms, p99 ${pages.p99.toFixed(2)} ms, ${Math.round(pages.rps)} views/s`);
  console.log(`CPU µs per page view: daemon ${pages.cpuUs}`);
  console.log(`unknown token (404) at ${VIEWERS} concurrent viewers: p50 ${missing.p50.toFixed(2)} ms, p99 ${missing.p99.toFixed(2)} ms; CPU µs per answer: daemon ${missing.cpuUs}`);
  console.log(`streams: ${STREAMS} open: daemon RSS ${(rssBefore / 1024).toFixed(1)} → ${(rssOpen / 1024).toFixed(1)} MB, ${perStreamKb.toFixed(1)} KB per stream`);
  console.log(
    `block → status on every stream: p50 ${pct(latencies, 0.5).toFixed(1)} ms, p99 ${pct(latencies, 0.99).toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms over ${ROUNDS} blocks × ${STREAMS} streams (from the block's POST; the POST itself p50 ${pct(posts, 0.5).toFixed(1)} ms)`,
  );
  console.log(`CPU µs per stream update: daemon ${updateUs}`);
  console.log(
    JSON.stringify({
      bench: "checkout",
      orders: ORDERS,
      viewers: VIEWERS,
      requests: REQUESTS,
      streams: STREAMS,
      rounds: ROUNDS,
      first_view_p50_ms: pct(cold, 0.5),
      page: pages,
      not_found: missing,
      rss_kb: { before: rssBefore, open: rssOpen, per_stream: perStreamKb },
      update_ms: { p50: pct(latencies, 0.5), p99: pct(latencies, 0.99), max: Math.max(...latencies) },
      update_cpu_us: updateUs,
    }),
  );
}

/** An account and its orders, made in-process before the daemon starts; their tokens and addresses. */
async function seedOrders(configPath: string): Promise<Order[]> {
  const loaded = loadConfig(configPath);
  if (!loaded.ok) throw new Error(loaded.error);
  const ctx = await openContext(loaded.config, { env: {} });
  try {
    await setPlan(ctx.db, ctx.clock, { name: "bench", slots: 10 });
    const account = await createAccount(ctx, { name: "bench", plan: "bench", credits: 1_000_000 });
    if (!account.ok) throw new Error(account.error);
    const out: Order[] = [];
    const derivers = createWalletDerivers(ctx.box);
    for (let i = 0; i < ORDERS; i++) {
      const address = `0x${(i + 1).toString(16).padStart(40, "0")}`;
      const made = await createOrder({ db: ctx.db, clock: ctx.clock, networks: loaded.config.networks, derivers }, account.account.id, {
        order_id: `bench-${i}`,
        network: "eth",
        address,
        amount: "1.5",
        description: `Bench order ${i}`,
        expires_in_seconds: 86_400,
      });
      if (!made.ok) throw new Error(JSON.stringify(made));
      out.push({ token: made.order.checkout_token, address });
    }
    const backlog: string[] = [];
    for (let i = 0; i < BACKLOG; i++) {
      const made = await createOrder({ db: ctx.db, clock: ctx.clock, networks: loaded.config.networks, derivers }, account.account.id, {
        order_id: `backlog-${i}`,
        network: "eth",
        address: `0x${(0x100000 + i).toString(16).padStart(40, "0")}`,
        amount: "1.5",
        expires_in_seconds: 86_400,
      });
      if (!made.ok) throw new Error(JSON.stringify(made));
      backlog.push(made.order.id);
    }
    for (let at = 0; at < backlog.length; at += 500) {
      const rows = backlog.slice(at, at + 500).map((paymentId, i) => ({ payment_id: paymentId, tx_hash: hash(0xb000_0000 + at + i), movement: 0, block_hash: hash(3), block_height: 3, sender: null, amount_raw: "1", confirmed: 0, late: 0, created_at: Date.now() }));
      await ctx.db.insertInto("payment_transfers").values(rows).execute();
    }
    return out;
  } finally {
    await ctx.db.destroy();
  }
}

function hash(n: number): string {
  return `0x${n.toString(16).padStart(64, "0")}`;
}

function block(height: number, transactions: unknown[]) {
  return { network: "eth", height, hash: hash(height), parent_hash: hash(height - 1), timestamp: 1_763_750_000 + height, transactions };
}

async function ingest(base: string, batch: unknown): Promise<void> {
  const res = await fetch(`${base}/ingest/blocks`, { method: "POST", headers: { authorization: `Bearer ${INGEST_TOKEN}`, "content-type": "application/json" }, body: JSON.stringify(batch) });
  if (res.status !== 202) throw new Error(`ingest answered ${res.status}: ${await res.text()}`);
}

/** Each URL once, one at a time: latencies in ms. */
async function sequential(urls: string[]): Promise<number[]> {
  const out: number[] = [];
  for (const url of urls) {
    const t0 = performance.now();
    const res = await fetch(url);
    await res.arrayBuffer();
    out.push(performance.now() - t0);
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  }
  return out;
}

type Viewed = { p50: number; p99: number; rps: number; cpuUs: number };

/** `total` GETs of `urls` (round robin) from `VIEWERS` concurrent loops; each must answer `status`. */
async function viewers(urls: string[], total: number, pid: number, status: number): Promise<Viewed> {
  const samples: number[] = [];
  let next = 0;
  const cpu0 = cpuOf(pid);
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(VIEWERS, total) }, async () => {
      for (;;) {
        const i = next++;
        if (i >= total) return;
        const s = performance.now();
        const res = await fetch(urls[i % urls.length]);
        await res.arrayBuffer();
        samples.push(performance.now() - s);
        if (res.status !== status) throw new Error(`${urls[i % urls.length]} answered ${res.status}, not ${status}`);
      }
    }),
  );
  const wall = performance.now() - t0;
  const cpuMs = cpuOf(pid) - cpu0;
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))];
  return { p50: at(0.5), p99: at(0.99), rps: (samples.length * 1000) / wall, cpuUs: Math.round((cpuMs * 1000) / samples.length) };
}

type Stream = { waitFor(events: number): Promise<number>; close(): void };

/**
 * `count` event streams over raw sockets (fetch would queue past its connection cap), stream i on
 * order i mod orders. Each `status` event is one chunk of the chunked response, so counting
 * "event: status" in the bytes counts events; `waitFor(n)` resolves with the time the n-th arrived.
 */
async function openStreams(base: string, orders: Order[], count: number): Promise<Stream[]> {
  const { hostname, port } = new URL(base);
  const out: Stream[] = [];
  for (let i = 0; i < count; i++) {
    const path = `/pay/${orders[i % orders.length].token}/events`;
    const arrivals: number[] = [];
    const waiters: { n: number; resolve: (at: number) => void }[] = [];
    let tail = "";
    const socket = await Bun.connect({
      hostname,
      port: Number(port),
      socket: {
        data(_s, data) {
          const now = performance.now();
          const text = tail + data.toString();
          const found = text.split("event: status").length - 1;
          for (let k = 0; k < found; k++) arrivals.push(now);
          // A marker cut in two by a read: its first part (at most 12 characters, one fewer than
          // the marker, so never a whole counted one) is read again with the rest.
          tail = text.slice(-12);
          for (const w of [...waiters]) if (arrivals.length >= w.n) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve(arrivals[w.n - 1]);
          }
        },
      },
    });
    socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAccept: text/event-stream\r\n\r\n`);
    out.push({
      waitFor: (n) =>
        arrivals.length >= n
          ? Promise.resolve(arrivals[n - 1])
          : new Promise((resolve, reject) => {
              waiters.push({ n, resolve });
              setTimeout(() => reject(new Error(`stream ${i}: event ${n} did not come within 60 s`)), 60_000).unref();
            }),
      close: () => socket.end(),
    });
  }
  return out;
}

/** The median of five readings of the daemon's resident memory over a second, in KB. */
async function steadyRssKb(pid: number): Promise<number> {
  const readings: number[] = [];
  for (let i = 0; i < 5; i++) {
    readings.push(rssKb(pid));
    await Bun.sleep(200);
  }
  return readings.sort((a, b) => a - b)[2];
}

/** The daemon's resident memory in KB. */
function rssKb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((l) => l.startsWith("VmRSS:"));
  return Number(line?.split(/\s+/)[1] ?? 0);
}
