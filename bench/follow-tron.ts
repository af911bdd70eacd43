#!/usr/bin/env bun
// `bun run bench:follow-tron`: catch-up throughput of a real `chainwatch serve` subprocess
// following the fake java-tron node of test/support/tron-node.ts (its answers are the recorded
// bodies of test/fixtures/tron/, templated), pre-filled with 1,000 blocks × 200 transactions
// (half TRX transfers, half USDT transfers, 1 % to watched addresses), against a bare loop in this
// process that reads the same blocks and transaction infos from the same node with the same 8
// blocks in flight (a block's two requests at once, as the daemon asks them while blocks have
// transactions), parses them and finds the same payments (a TRX transfer to a watched address
// that succeeded, a TRC-20 `Transfer` log naming one as recipient), nothing else. Several rounds,
// each a bare loop and a fresh daemon on a fresh database, their order swapped every round;
// medians and spread printed. Both read answers the node has already
// rendered (the bare loop's first run renders them), and every answer waits BENCH_NODE_LATENCY_MS
// (50) before it is sent: a real java-tron node takes tens of milliseconds to print a block of
// 200 transactions, and TronGrid is further away, while the fake answers from memory in well under
// one; with 0, the ratio compares chainwatch's whole ingest with a loop that only parses. The
// daemon's CPU time per block comes from /proc. Then the steady-state lag: a block paying a watched
// address is added, how long until its payment webhook reaches a receiver (poll_interval_ms = 250).
// Knobs (env): BENCH_BLOCKS, BENCH_TX_PER_BLOCK, BENCH_LAG_SAMPLES, BENCH_NODE_LATENCY_MS,
// BENCH_ROUNDS (3); BENCH_DAEMON_ARGS: extra flags for the daemon's bun (a profiler);
// BENCH_BEFORE_TREE: another checkout whose daemon each round also runs (before/after a change).
import { Database } from "bun:sqlite";
import type { Subprocess } from "bun";
import { cpus } from "node:os";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTronNode, tronAddress, tronChain, type FakeTronTx, txIdOf } from "../test/support/tron-node.ts";
import { cpuOf, loadAverage, startCpuWindow } from "./support/cpu.ts";
import { median, spread } from "./support/rounds.ts";
import { daemonConfigHead } from "./support/daemons.ts";
import { seedWatchingAccount } from "./support/watching-account.ts";

const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const BLOCKS = num("BENCH_BLOCKS", 1000);
const TX_PER_BLOCK = num("BENCH_TX_PER_BLOCK", 200);
const LAG_SAMPLES = num("BENCH_LAG_SAMPLES", 30);
const LATENCY_MS = num("BENCH_NODE_LATENCY_MS", 50);
const ROUNDS = num("BENCH_ROUNDS", 3);
const DAEMON_ARGS = (process.env.BENCH_DAEMON_ARGS ?? "").split(/\s+/).filter(Boolean);
// Another checkout of chainwatch (the code before a change, node_modules linked in): each round
// also runs its daemon, so a change is measured against its parent in the same run, interleaved.
const BEFORE_TREE = process.env.BENCH_BEFORE_TREE;
const TARGET = 0.7;
/** CPU ms this process has used so far (the bare loop runs in it, beside the node). */
const ownCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const WATCHED = 10;
// The follower's fetch-ahead window (createChainFollower's default); the bare loop uses the same.
const CONCURRENCY = 8;
const USDT = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t";
const CLI = join(import.meta.dir, "../cli/index.ts");
const children: Subprocess[] = [];

const watchedId = (i: number) => (0xbe000000 + i).toString(16).padStart(40, "0");
const watched = (i: number) => tronAddress(watchedId(i));
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

const TRANSFER_TOPIC = "ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
// With `visible: true` a transfer names its recipient as `T…`; a log names it by its 20-byte id.
const WATCHED_SET = new Set(Array.from({ length: WATCHED }, (_, i) => watched(i)));
const WATCHED_IDS = new Set(Array.from({ length: WATCHED }, (_, i) => watchedId(i)));

type BareTx = { ret?: { contractRet?: string }[]; raw_data: { contract: { type: string; parameter: { value: { to_address?: string } } }[] } };
type BareInfo = { result?: string; receipt?: { result?: string }; log?: { topics: string[] }[] };

/**
 * Reads heights 1..head, `CONCURRENCY` at a time: block and transaction infos, parsed, and the
 * payments to watched addresses found in them (a TRX transfer that succeeded, a TRC-20 `Transfer`
 * log of a call that did), nothing else.
 */
async function bareLoop(url: string, head: number): Promise<{ seconds: number; txs: number; payments: number }> {
  let next = 1;
  let txs = 0;
  let payments = 0;
  const started = performance.now();
  const lane = async () => {
    while (next <= head) {
      const h = next++;
      // Both by number, asked at once, as the daemon's source asks them while blocks have transactions.
      const [block, infos] = (await Promise.all([post(`${url}/wallet/getblockbynum`, { num: h, visible: true }), post(`${url}/wallet/gettransactioninfobyblocknum`, { num: h, visible: true })])) as [
        { transactions?: BareTx[] },
        BareInfo[],
      ];
      const transactions = block.transactions ?? [];
      if (infos.length !== transactions.length) throw new Error("infos missing");
      for (let i = 0; i < transactions.length; i++) {
        const tx = transactions[i];
        const info = infos[i];
        if (tx.ret?.[0]?.contractRet !== "SUCCESS" || info.result === "FAILED") continue;
        const contract = tx.raw_data.contract[0];
        if (contract.type === "TransferContract" && WATCHED_SET.has(contract.parameter.value.to_address ?? "")) payments++;
        for (const log of info.log ?? []) {
          if (log.topics.length === 3 && log.topics[0] === TRANSFER_TOPIC && WATCHED_IDS.has(log.topics[2].slice(24))) payments++;
        }
      }
      txs += transactions.length;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  return { seconds: (performance.now() - started) / 1000, txs, payments };
}

function spawnServe(configPath: string, cli: string): Subprocess<"ignore", "pipe", "inherit"> {
  const proc = Bun.spawn([process.execPath, ...DAEMON_ARGS, cli, "serve", "--config", configPath], { stdin: "ignore", stdout: "pipe", stderr: "inherit" });
  children.push(proc);
  // Drain the JSON log so the daemon never blocks on a full pipe.
  (async () => {
    const reader = proc.stdout.getReader();
    while (!(await reader.read()).done) {}
  })();
  return proc;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

type Side = { seconds: number; cpuUs: number; nodeUs: number; machineBusy: number; payments: number };

async function main() {
  const dir = mkdtempSync(join(tmpdir(), "chainwatch-bench-follow-tron-"));
  const t = performance.now();
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
    // The node renders (and keeps) every answer first.
    await bareLoop(node.url, BLOCKS);
    console.log(`fake node pre-filled and rendered: ${BLOCKS} blocks × ${TX_PER_BLOCK} tx in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    node.latencyMs = LATENCY_MS;

    // The node runs in this process: the bare side's CPU is the loop's and the node's together;
    // while the daemon catches up, this process's CPU is the node's (and the receiver's).
    const bareRun = async (): Promise<Side> => {
      const window = startCpuWindow({ self: ownCpuMs });
      const result = await bareLoop(node.url, BLOCKS);
      const w = window();
      return { seconds: result.seconds, cpuUs: Math.round((w.byRole.self * 1000) / BLOCKS), nodeUs: 0, machineBusy: w.machineBusy / Math.max(1, w.machineTotal), payments: result.payments };
    };

    /** One daemon following the chain from 0 on a fresh database; with `lag`, then the steady-state lag. */
    const runDaemon = async (name: string, lag: boolean, cli = CLI): Promise<Side & { lags: number[] }> => {
      const dbPath = join(dir, `${name}.db`);
      const configPath = join(dir, `${name}.toml`);
      payments.clear();
      writeFileSync(
        configPath,
        [
          ...daemonConfigHead(dir, `sqlite://${dbPath}`),
          `[delivery]\nallow_private_targets = true`,
          `[billing]\nenabled = false`,
          `[networks.tron]\nfamily = "tron"\ndecimals = 6\nconfirmations = 1\nrpc_urls = ["${node.url}"]\nfollow = true\nstart_height = 0\npoll_interval_ms = 250`,
          `[networks.tron.tokens]\n"${USDT}" = { symbol = "USDT", decimals = 6 }`,
          "",
        ].join("\n"),
      );
      await seedWatchingAccount(configPath, { network: "tron", addresses: Array.from({ length: WATCHED }, (_, i) => watched(i)), hookUrl: `http://127.0.0.1:${sink.port}/hook` });

      const db = new Database(dbPath, { readonly: true });
      const tip = () => (db.query("SELECT max(height) AS h FROM blocks WHERE network = 'tron'").get() as { h: number | null }).h ?? -1;
      const started = performance.now();
      const serve = spawnServe(configPath, cli);
      const window = startCpuWindow({ daemon: () => cpuOf(serve.pid), node: ownCpuMs });
      while (tip() < BLOCKS) await Bun.sleep(20);
      const seconds = (performance.now() - started) / 1000;
      const w = window();
      // Heights 1..BLOCKS only: a daemon of a later side may have followed the lag's blocks above them.
      const found = (db.query("SELECT count(*) AS n FROM events WHERE network = 'tron' AND type = 'payment' AND block_height <= ?").get(BLOCKS) as { n: number }).n;

      // Steady state: one block at a time, each paying a watched address; lag = block added → webhook received.
      const lags: number[] = [];
      for (let i = 0; lag && i < LAG_SAMPLES; i++) {
        // Land at a random point of the poll interval (Tron makes a block every 3 s).
        await Bun.sleep(Math.random() * 250);
        const head = Math.max(...node.blocks.keys());
        const id = txIdOf(`lag-${i}`);
        const [block] = tronChain("a", head + 1, head + 1, { txs: { [head + 1]: [{ kind: "trx", id, from: senders[0], to: watched(i % WATCHED), amount: 1 }] } });
        const added = performance.now();
        node.blocks.set(head + 1, block);
        while (!payments.has(id)) await new Promise<void>((resolve) => (onPayment = resolve));
        lags.push((payments.get(id) as number) - added);
      }
      db.close();
      serve.kill("SIGTERM");
      await serve.exited;
      lags.sort((a, b) => a - b);
      const per = (ms: number) => Math.round((ms * 1000) / BLOCKS);
      return { seconds, cpuUs: per(w.byRole.daemon), nodeUs: per(w.byRole.node), machineBusy: w.machineBusy / Math.max(1, w.machineTotal), payments: found, lags };
    };

    // Rounds alternate which side goes first, so neither always meets a machine the other just warmed.
    const load = loadAverage();
    const bares: Side[] = [];
    const ours: (Side & { lags: number[] })[] = [];
    const befores: Side[] = [];
    const beforeRun = async (round: number) => {
      if (BEFORE_TREE) befores.push(await runDaemon(`r${round}before`, false, join(BEFORE_TREE, "cli/index.ts")));
    };
    for (let round = 1; round <= ROUNDS; round++) {
      // The last round's daemon goes on to the steady-state lag (blocks above the heights the rounds read).
      const daemon = () => runDaemon(`r${round}`, round === ROUNDS);
      if (round % 2 === 1) {
        bares.push(await bareRun());
        await beforeRun(round);
        ours.push(await daemon());
      } else {
        ours.push(await daemon());
        await beforeRun(round);
        bares.push(await bareRun());
      }
      const [b, o] = [bares[bares.length - 1], ours[ours.length - 1]];
      const before = BEFORE_TREE ? `; before: ${(BLOCKS / befores[befores.length - 1].seconds).toFixed(1)} blocks/s, ratio ${(b.seconds / befores[befores.length - 1].seconds).toFixed(2)}` : "";
      console.log(`round ${round}/${ROUNDS}: bare loop ${(BLOCKS / b.seconds).toFixed(1)} blocks/s, chainwatch ${(BLOCKS / o.seconds).toFixed(1)} blocks/s, ratio ${(b.seconds / o.seconds).toFixed(2)}${before}`);
    }
    const found = bares[0].payments;
    if ([...bares, ...ours, ...befores].some((s) => s.payments !== found)) throw new Error(`payments found differ: bare loop ${bares.map((b) => b.payments).join(", ")}, chainwatch ${ours.map((s) => s.payments).join(", ")}`);
    const lags = ours[ours.length - 1].lags;
    const ratios = ours.map((s, i) => bares[i].seconds / s.seconds);
    const txCount = BLOCKS * TX_PER_BLOCK;

    console.log("");
    console.log(`machine      ${cpus().length} vCPU ${cpus()[0]?.model ?? "?"}, load average ${load} at the start, ${loadAverage()} at the end; ${ROUNDS} rounds, median (min–max)`);
    console.log(`chainwatch   ${spread(ours.map((s) => BLOCKS / s.seconds), 1)} blocks/s, ${spread(ours.map((s) => txCount / s.seconds))} tx/s (catch-up from 0 to ${BLOCKS}, process start included; ${found} payments found)`);
    console.log(`bare loop    ${spread(bares.map((s) => BLOCKS / s.seconds), 1)} blocks/s, ${spread(bares.map((s) => txCount / s.seconds))} tx/s (${CONCURRENCY} in flight, node latency ${LATENCY_MS} ms an answer; the same ${found} payments found)`);
    console.log(`daemon CPU   ${spread(ours.map((s) => s.cpuUs))} µs per block, ${spread(ours.map((s) => s.cpuUs / TX_PER_BLOCK))} µs per transaction (user + system of the serve process over the catch-up, start-up included); the node ${spread(ours.map((s) => s.nodeUs))} µs per block for it`);
    console.log(`bare CPU     ${spread(bares.map((s) => s.cpuUs))} µs per block, the loop and the node together (one process)`);
    if (BEFORE_TREE) {
      console.log(`before       ${spread(befores.map((s) => BLOCKS / s.seconds), 1)} blocks/s, daemon CPU ${spread(befores.map((s) => s.cpuUs))} µs per block, ratio ${spread(befores.map((s, i) => bares[i].seconds / s.seconds), 2)} (the daemon of ${BEFORE_TREE}, same rounds)`);
    }
    console.log(`machine busy ${spread(ours.map((s) => s.machineBusy * 100))} % during chainwatch's catch-up, ${spread(bares.map((s) => s.machineBusy * 100))} % during the bare loop's`);
    if (lags.length > 0) console.log(`lag          p50 ${percentile(lags, 50).toFixed(0)} ms, p99 ${percentile(lags, 99).toFixed(0)} ms over ${LAG_SAMPLES} blocks (block added → payment webhook received; poll_interval_ms = 250)`);
    console.log(`ratio        ${spread(ratios, 2)} of the bare loop (target ≥ ${TARGET})`);
    if (median(ratios) < TARGET) {
      const cpuUs = median(ours.map((s) => s.cpuUs));
      const bps = median(ours.map((s) => BLOCKS / s.seconds));
      console.log(
        `under ${TARGET}: the daemon spent ${cpuUs} µs of CPU a block, ${((cpuUs * bps) / 1e6).toFixed(2)} of a core at ${bps.toFixed(0)} blocks/s, ` +
          `with the machine's ${cpus().length} cores ${Math.round(median(ours.map((s) => s.machineBusy)) * 100)} % busy (load average ${loadAverage()}): it waits on CPU, not on the node, whose ${LATENCY_MS} ms answers the bare loop reads at ${median(bares.map((s) => BLOCKS / s.seconds)).toFixed(0)} blocks/s`,
      );
    }
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill("SIGTERM");
    await Promise.all(children.map((c) => c.exited));
    sink.stop(true);
    node.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
