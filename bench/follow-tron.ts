#!/usr/bin/env bun
// `bun run bench:follow-tron`: catch-up throughput of a real `chainwatch serve` subprocess
// following the fake java-tron node of test/support/tron-node.ts (its answers are the recorded
// bodies of test/fixtures/tron/, templated), pre-filled with 1,000 blocks × 200 transactions
// (half TRX transfers, half USDT transfers, 1 % to watched addresses), against a bare loop in this
// process that reads the same blocks and transaction infos from the same node with the same 8
// requests in flight, parses them and does nothing else. Both read answers the node has already
// rendered (the bare loop's first run renders them), and every answer waits BENCH_NODE_LATENCY_MS
// (50) before it is sent: a real java-tron node takes tens of milliseconds to print a block of
// 200 transactions, and TronGrid is further away, while the fake answers from memory in well under
// one; with 0, the ratio compares chainwatch's whole ingest with a loop that only parses. The
// daemon's CPU time per block comes from /proc. Then the steady-state lag: a block paying a watched
// address is added, how long until its payment webhook reaches a receiver (poll_interval_ms = 250).
// Knobs (env): BENCH_BLOCKS, BENCH_TX_PER_BLOCK, BENCH_LAG_SAMPLES, BENCH_NODE_LATENCY_MS.
import { Database } from "bun:sqlite";
import type { Subprocess } from "bun";
import { cpus } from "node:os";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAccount } from "../src/accounts/accounts.ts";
import { setPlan } from "../src/accounts/plans.ts";
import { loadConfig } from "../src/config/load.ts";
import { openContext } from "../src/daemon.ts";
import { addWatch } from "../src/watch/watches.ts";
import { startTronNode, tronAddress, tronChain, type FakeTronTx, txIdOf } from "../test/support/tron-node.ts";
import { cpuOf, loadAverage } from "./support/cpu.ts";
import { pointWebhook } from "./support/endpoint.ts";

const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const BLOCKS = num("BENCH_BLOCKS", 1000);
const TX_PER_BLOCK = num("BENCH_TX_PER_BLOCK", 200);
const LAG_SAMPLES = num("BENCH_LAG_SAMPLES", 30);
const LATENCY_MS = num("BENCH_NODE_LATENCY_MS", 50);
const WATCHED = 10;
// The follower's fetch-ahead window (createChainFollower's default); the bare loop uses the same.
const CONCURRENCY = 8;
const USDT = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t";
const CLI = join(import.meta.dir, "../cli/index.ts");
const children: Subprocess[] = [];

const watched = (i: number) => tronAddress(0xbe000000 + i);
// Senders and recipients from pools of 1,000 addresses each, as on a busy chain.
const senders = Array.from({ length: 1000 }, (_, i) => tronAddress(0x5e000000 + i));
const recipients = Array.from({ length: 1000 }, (_, i) => tronAddress(0x7e000000 + i));

function blockTxs(h: number): FakeTronTx[] {
  const txs: FakeTronTx[] = [];
  for (let i = 0; i < TX_PER_BLOCK; i++) {
    const k = h * TX_PER_BLOCK + i;
    const from = senders[k % senders.length];
    const to = k % 100 === 0 ? watched(k % WATCHED) : recipients[(k * 7) % recipients.length];
    txs.push(i % 2 === 0 ? { kind: "trx", from, to, amount: 1_000_000 + i } : { kind: "trc20", from, token: USDT, to, value: BigInt(1_000 + i) });
  }
  return txs;
}

async function post(url: string, body: unknown): Promise<unknown> {
  const res = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  return res.json();
}

/** Reads heights 1..head, `CONCURRENCY` at a time: block and transaction infos, parsed, nothing else. */
async function bareLoop(url: string, head: number): Promise<{ seconds: number; txs: number }> {
  let next = 1;
  let txs = 0;
  const started = performance.now();
  const lane = async () => {
    while (next <= head) {
      const h = next++;
      const block = (await post(`${url}/wallet/getblockbynum`, { num: h, visible: true })) as { transactions?: unknown[] };
      const infos = (await post(`${url}/wallet/gettransactioninfobyblocknum`, { num: h, visible: true })) as unknown[];
      if (infos.length !== (block.transactions?.length ?? 0)) throw new Error("infos missing");
      txs += infos.length;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  return { seconds: (performance.now() - started) / 1000, txs };
}

function spawnServe(configPath: string): Subprocess<"ignore", "pipe", "inherit"> {
  const proc = Bun.spawn([process.execPath, CLI, "serve", "--config", configPath], { stdin: "ignore", stdout: "pipe", stderr: "inherit" });
  children.push(proc);
  // Drain the JSON log so the daemon never blocks on a full pipe.
  (async () => {
    const reader = proc.stdout.getReader();
    while (!(await reader.read()).done) {}
  })();
  return proc;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

async function main() {
  const dir = mkdtempSync(join(tmpdir(), "chainwatch-bench-follow-tron-"));
  let t = performance.now();
  const txs: Record<number, FakeTronTx[]> = {};
  for (let h = 1; h <= BLOCKS; h++) txs[h] = blockTxs(h);
  const node = startTronNode({ blocks: tronChain("a", 0, BLOCKS, { txs }) });
  const payments = new Map<string, number>();
  let onPayment: (() => void) | null = null;
  const sink = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const body = (await req.json()) as { type: string; tx_hash: string };
      if (body.type === "payment" && !payments.has(body.tx_hash)) payments.set(body.tx_hash, performance.now());
      onPayment?.();
      return new Response("ok");
    },
  });
  try {
    // The node renders (and keeps) every answer first; then the baseline, twice, the faster run kept.
    await bareLoop(node.url, BLOCKS);
    console.log(`fake node pre-filled and rendered: ${BLOCKS} blocks × ${TX_PER_BLOCK} tx in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    node.latencyMs = LATENCY_MS;
    const bare = [await bareLoop(node.url, BLOCKS), await bareLoop(node.url, BLOCKS)].sort((a, b) => a.seconds - b.seconds)[0];

    const dbPath = join(dir, "cw.db");
    const configPath = join(dir, "cw.toml");
    writeFileSync(
      configPath,
      [
        `[server]\nhost = "127.0.0.1"\nport = 0`,
        `[database]\nurl = "sqlite://${dbPath}"`,
        `[secrets]\nmaster_key_file = "${dir}/master.key"`,
        `[delivery]\nallow_private_targets = true`,
        `[billing]\nenabled = false`,
        `[networks.tron]\nfamily = "tron"\ndecimals = 6\nconfirmations = 1\nrpc_urls = ["${node.url}"]\nfollow = true\nstart_height = 0\npoll_interval_ms = 250`,
        `[networks.tron.tokens]\n"${USDT}" = { symbol = "USDT", decimals = 6 }`,
        "",
      ].join("\n"),
    );
    const loaded = loadConfig(configPath);
    if (!loaded.ok) throw new Error(loaded.error);
    const ctx = await openContext(loaded.config, { env: {} });
    await setPlan(ctx.db, ctx.clock, { name: "bench", slots: WATCHED });
    const account = await createAccount(ctx, { name: "bench", plan: "bench" });
    if (!account.ok) throw new Error(account.error);
    await pointWebhook(ctx.db, account.account.id, `http://127.0.0.1:${sink.port}/hook`);
    for (let i = 0; i < WATCHED; i++) await addWatch(ctx.db, { accountId: account.account.id, network: "tron", address: watched(i), now: Date.now() });
    await ctx.db.destroy();

    const db = new Database(dbPath, { readonly: true });
    const tip = () => (db.query("SELECT max(height) AS h FROM blocks WHERE network = 'tron'").get() as { h: number | null }).h ?? -1;
    const load = loadAverage();
    t = performance.now();
    const serve = spawnServe(configPath);
    const cpuStart = cpuOf(serve.pid);
    while (tip() < BLOCKS) await Bun.sleep(20);
    const seconds = (performance.now() - t) / 1000;
    const cpuMs = cpuOf(serve.pid) - cpuStart;

    // Steady state: one block at a time, each paying a watched address; lag = block added → webhook received.
    const lags: number[] = [];
    for (let i = 0; i < LAG_SAMPLES; i++) {
      // Land at a random point of the poll interval (Tron makes a block every 3 s).
      await Bun.sleep(Math.random() * 250);
      const head = Math.max(...node.blocks.keys());
      const id = txIdOf(`lag-${i}`);
      const [block] = tronChain("a", head + 1, head + 1, { txs: { [head + 1]: [{ kind: "trx", id, from: senders[0], to: watched(i % WATCHED), amount: 1 }] } });
      const started = performance.now();
      node.blocks.set(head + 1, block);
      while (!payments.has(id)) await new Promise<void>((resolve) => (onPayment = resolve));
      lags.push((payments.get(id) as number) - started);
    }
    db.close();
    lags.sort((a, b) => a - b);

    const bps = BLOCKS / seconds;
    const bareBps = BLOCKS / bare.seconds;
    console.log("");
    console.log(`machine      ${cpus().length} vCPU ${cpus()[0]?.model ?? "?"}, load average ${load} at the start of the catch-up`);
    console.log(`chainwatch   ${bps.toFixed(0).padStart(6)} blocks/s  ${((BLOCKS * TX_PER_BLOCK) / seconds).toFixed(0).padStart(7)} tx/s   (catch-up from 0 to ${BLOCKS} in ${seconds.toFixed(2)} s, process start included)`);
    console.log(`bare loop    ${bareBps.toFixed(0).padStart(6)} blocks/s  ${(bare.txs / bare.seconds).toFixed(0).padStart(7)} tx/s   (${CONCURRENCY} in flight, ${bare.seconds.toFixed(2)} s; node latency ${LATENCY_MS} ms an answer)`);
    console.log(`ratio        ${(bps / bareBps).toFixed(2)} of the bare loop (target ≥ 0.7)`);
    console.log(`daemon CPU   ${Math.round((cpuMs * 1000) / BLOCKS)} µs per block, ${Math.round((cpuMs * 1000) / (BLOCKS * TX_PER_BLOCK))} µs per transaction (user + system of the serve process over the catch-up, start-up included)`);
    console.log(`lag          p50 ${percentile(lags, 50).toFixed(0)} ms, p99 ${percentile(lags, 99).toFixed(0)} ms over ${LAG_SAMPLES} blocks (block added → payment webhook received; poll_interval_ms = 250)`);
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill("SIGTERM");
    await Promise.all(children.map((c) => c.exited));
    sink.stop(true);
    node.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
