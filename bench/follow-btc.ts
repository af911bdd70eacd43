#!/usr/bin/env bun
// `bun run bench:follow-btc`: catch-up throughput of a real `chainwatch serve` subprocess
// following a real Litecoin Core node (`litecoind -regtest`, test/support/litecoind.ts) that holds
// 1,000 blocks × 100 transactions (each spends one output and pays one payee plus its change;
// payees from a pool of 1,000 addresses, half bech32 and half legacy, and 1 % of all outputs pay
// one of 10 watched addresses), against a bare loop in this process that reads the same blocks
// from the same node (`getblockhash` + `getblock <hash> 2`, each a JSON-RPC batch of one, parsed
// with the daemon's parseExactValues) with the same 8 requests in flight and does nothing else.
// The CPU time per block of the daemon and of litecoind comes from /proc. Then the steady-state
// lag: `sendtoaddress` to a watched address and `generatetoaddress 1`, how long until the payment
// webhook reaches a receiver (poll_interval_ms = 250).
//
// The chain is built once and kept: the node's datadir goes to `.bench/` under a name holding the
// sizes, and each run starts litecoind on a copy of it (the lag samples mine more blocks). The node
// that builds it is shut down with the `stop` RPC, which flushes its block index, chainstate and
// wallets (a killed node's datadir starts again at height 0), and a copy is started and its height
// checked before the cache is saved. A cache whose copy does not start at the height it recorded
// (one saved by a killed node) is built again.
// Knobs (env): BENCH_BLOCKS, BENCH_TX_PER_BLOCK, BENCH_LAG_SAMPLES, BENCH_NODE_LATENCY_MS (0: the
// node directly; above 0, a proxy in this process delays every answer by that much, for both, and
// its CPU counts in the bare loop's),
// BENCH_CPU_PROF_DIR (the serve process writes a Markdown CPU profile there when it exits; with
// BENCH_LAG_SAMPLES=0 it covers the catch-up alone).
import { Database } from "bun:sqlite";
import type { Subprocess } from "bun";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { sha256 } from "@noble/hashes/sha2.js";
import { bech32, createBase58check } from "@scure/base";
import { createAccount } from "../src/accounts/accounts.ts";
import { setPlan } from "../src/accounts/plans.ts";
import { loadConfig } from "../src/config/load.ts";
import { openContext } from "../src/daemon.ts";
import { parseExactValues } from "../src/follow/btc/client.ts";
import { addWatch } from "../src/watch/watches.ts";
import { type Litecoind, startLitecoind } from "../test/support/litecoind.ts";
import { cpuOf, loadAverage } from "./support/cpu.ts";
import { killOnInterrupt, onInterrupt } from "./support/interrupt.ts";
import { pointWebhook } from "./support/endpoint.ts";

const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const BLOCKS = num("BENCH_BLOCKS", 1000);
const TX_PER_BLOCK = num("BENCH_TX_PER_BLOCK", 100);
const LAG_SAMPLES = num("BENCH_LAG_SAMPLES", 20);
const LATENCY_MS = num("BENCH_NODE_LATENCY_MS", 0);
const CPU_PROF_DIR = process.env.BENCH_CPU_PROF_DIR;
const WATCHED = 10;
const POOL = 1000;
// The follower's fetch-ahead window (createChainFollower's default); the bare loop uses the same.
const CONCURRENCY = 8;
const NETWORK = "ltc";
// Every payment is 0.0001 LTC and a few satoshi, every fee 2,000 satoshi (9-14 sat/vB, the relay
// minimum is 1); a lane is funded for all its blocks with a quarter to spare.
const PAY_SAT = 10_000n;
const FEE_SAT = 2_000n;
const LANE_FUND_SAT = ((PAY_SAT + 1_000n + FEE_SAT) * BigInt(BLOCKS) * 5n) / 4n;
const CLI = join(import.meta.dir, "../cli/index.ts");
// Bump the suffix when the chain's make-up changes, so an old cache is not taken for the new one.
const CACHE = join(import.meta.dir, "../.bench", `follow-btc-litecoind-${BLOCKS}x${TX_PER_BLOCK}-v1`);
const CHAIN_FILE = "bench-chain.json";

const children: Subprocess[] = [];
const nodes: Litecoind[] = [];
const scratch: string[] = [];
killOnInterrupt(children);
// litecoind is not a Subprocess here (the harness keeps it): kill it by its pid, drop its dirs.
onInterrupt(() => {
  for (const n of nodes) {
    try {
      process.kill(n.pid, "SIGKILL");
    } catch {}
    scratch.push(n.datadir);
  }
  for (const d of scratch) rmSync(d, { recursive: true, force: true });
});

// Addresses nobody holds a key for: hash160s made from a seed, so every run (and the cached chain)
// agrees on them without storing them. Half are bech32 (`rltc1…`), half legacy (`m…`/`n…`, version 111).
const base58check = createBase58check(sha256);
function addressOf(seed: string, legacy: boolean): string {
  const hash160 = sha256(new TextEncoder().encode(`chainwatch-bench-${seed}`)).slice(0, 20);
  return legacy ? base58check.encode(Uint8Array.of(111, ...hash160)) : bech32.encode("rltc", [0, ...bech32.toWords(hash160)]);
}
const watched = Array.from({ length: WATCHED }, (_, i) => addressOf(`watched-${i}`, i % 2 === 1));
const pool = Array.from({ length: POOL }, (_, i) => addressOf(`pool-${i}`, i % 2 === 1));

/** Transaction k of the chain (k = block × TX_PER_BLOCK + lane) pays this: 1 in 50 a watched address, so with the change 1 % of outputs. */
const payeeOf = (k: number) => (k % 50 === 0 ? watched[(k / 50) % WATCHED] : pool[(k * 7) % POOL]);
/** Satoshi as the decimal LTC text the node parses exactly (never a float). */
const ltcText = (sat: bigint) => `${sat / 100_000_000n}.${(sat % 100_000_000n).toString().padStart(8, "0")}`;

type ChainFacts = { head: number; firstTxHeight: number; buildSeconds: number; builtAt: string };

function basicAuth(url: string): string {
  const u = new URL(url);
  return `Basic ${btoa(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`)}`;
}

/** Many calls in one JSON-RPC batch (one HTTP request, answered in order); throws on the first error. */
async function batch<T>(node: Litecoind, calls: [string, unknown[]][], wallet?: string): Promise<T[]> {
  const target = wallet === undefined ? node.bareUrl : `${node.bareUrl}wallet/${wallet}`;
  const res = await fetch(target, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: basicAuth(node.url) },
    body: JSON.stringify(calls.map(([method, params], id) => ({ jsonrpc: "1.0", id, method, params }))),
  });
  const answers = (await res.json()) as { result: T; error: { message: string } | null }[];
  const failed = answers.find((a) => a.error);
  if (failed) throw new Error(`${calls[0][0]} batch: ${failed.error?.message}`);
  return answers.map((a) => a.result);
}

/**
 * litecoind on `datadir`, which the harness leaves in place when it stops the node. Its flags are
 * the test harness's (small caches and keypool, tuned for the suite's speed) plus `args`: a change
 * there may move litecoind's figures, never the cached chain, whose height every run checks.
 */
async function startNodeOn(datadir: string, args: string[] = []): Promise<Litecoind> {
  const node = await startLitecoind(args, { datadir });
  nodes.push(node);
  return node;
}

/** Kills the node (the harness's stop: SIGKILL), for a copy of the chain that is thrown away. */
async function stopNode(node: Litecoind): Promise<void> {
  await node.stop();
  nodes.splice(nodes.indexOf(node), 1);
}

/** litecoind on a fresh copy of the cache in `into`, and the height its chain starts at. */
async function startOnCopy(into: string): Promise<{ node: Litecoind; head: number }> {
  rmSync(into, { recursive: true, force: true });
  cpSync(CACHE, into, { recursive: true });
  const node = await startNodeOn(into);
  return { node, head: await node.rpc<number>("getblockcount") };
}

/**
 * Builds the chain into the cache. One `sendtoaddress` takes ~120 ms here (the wallet writes
 * itself to disk per transaction), 100,000 would take over three hours, so the transactions are
 * raw: TX_PER_BLOCK lanes, each a key of an unloaded wallet with one confirmed output; per block,
 * every lane spends its output to one payee and its change back to itself
 * (createrawtransaction, signrawtransactionwithkey, sendrawtransaction, each one batch for the
 * whole block), then `generatetoaddress 1`. A lane's change is confirmed before it is spent, so no
 * mempool chain grows, and no wallet sees the 100,000 transactions.
 */
async function buildChain(): Promise<ChainFacts> {
  const started = performance.now();
  const partial = `${CACHE}.partial`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  scratch.push(partial);
  // Idle HTTP connections (Bun keeps them for reuse) hold the node's shutdown until they time out.
  const node = await startNodeOn(partial, ["-rpcservertimeout=1"]);
  let facts: ChainFacts;
  try {
    await node.createWallet("miner");
    const miner = await node.newAddress("bech32");
    // Coinbase outputs spend after 100 blocks; mine until the mature ones fund every lane.
    const need = LANE_FUND_SAT * BigInt(TX_PER_BLOCK) + 100_000_000n;
    await node.mine(101, miner);
    while (BigInt(Math.round((await node.rpc<number>("getbalance", [], "miner")) * 1e8)) < need) await node.mine(10, miner);

    await node.rpc("createwallet", ["lanes"]);
    const laneAddresses = await batch<string>(node, Array.from({ length: TX_PER_BLOCK }, (_, i) => ["getnewaddress", ["", i % 2 === 0 ? "bech32" : "legacy"]]), "lanes");
    const keys = await batch<string>(node, laneAddresses.map((a) => ["dumpprivkey", [a]]), "lanes");
    await node.rpc("unloadwallet", ["lanes"]);
    const fund = await node.sendMany(Object.fromEntries(laneAddresses.map((a) => [a, ltcText(LANE_FUND_SAT)])));
    await node.mine(1, miner);
    const { hex } = await node.rpc<{ hex: string }>("gettransaction", [fund], "miner");
    const decoded = await node.rpc<{ vout: { n: number; scriptPubKey: { address?: string; addresses?: string[] } }[] }>("decoderawtransaction", [hex]);
    const lanes = laneAddresses.map((address) => {
      const out = decoded.vout.find((o) => (o.scriptPubKey.addresses ?? [o.scriptPubKey.address]).includes(address));
      if (!out) throw new Error(`funding output of ${address} not found`);
      return { txid: fund, vout: out.n, sat: LANE_FUND_SAT };
    });
    const firstTxHeight = (await node.rpc<number>("getblockcount")) + 1;

    for (let b = 0; b < BLOCKS; b++) {
      const pays = lanes.map((_, i) => PAY_SAT + BigInt((b * TX_PER_BLOCK + i) % 1000));
      const unsigned = await batch<string>(
        node,
        lanes.map((lane, i) => [
          "createrawtransaction",
          [[{ txid: lane.txid, vout: lane.vout }], [{ [payeeOf(b * TX_PER_BLOCK + i)]: ltcText(pays[i]) }, { [laneAddresses[i]]: ltcText(lane.sat - pays[i] - FEE_SAT) }]],
        ]),
      );
      const signed = await batch<{ hex: string; complete: boolean }>(node, unsigned.map((tx, i) => ["signrawtransactionwithkey", [tx, [keys[i]]]]));
      if (signed.some((s) => !s.complete)) throw new Error(`block ${b}: a transaction is not fully signed`);
      const txids = await batch<string>(node, signed.map((s) => ["sendrawtransaction", [s.hex]]));
      await node.rpc("generatetoaddress", [1, miner]);
      lanes.forEach((lane, i) => Object.assign(lane, { txid: txids[i], vout: 1, sat: lane.sat - pays[i] - FEE_SAT }));
      if ((b + 1) % 100 === 0 || b + 1 === BLOCKS) console.log(`  built ${b + 1}/${BLOCKS} blocks (${((performance.now() - started) / 1000).toFixed(0)} s)`);
    }
    const head = await node.rpc<number>("getblockcount");
    facts = { head, firstTxHeight, buildSeconds: (performance.now() - started) / 1000, builtAt: new Date().toISOString() };
  } catch (e) {
    await stopNode(node);
    rmSync(partial, { recursive: true, force: true });
    throw e;
  }
  // The stop RPC: the node writes its block index, chainstate and wallets before it exits.
  await node.shutdown();
  nodes.splice(nodes.indexOf(node), 1);
  // What every run does: a node on a copy must find the whole chain.
  const check = `${partial}.check`;
  scratch.push(check);
  try {
    cpSync(partial, check, { recursive: true });
    const copy = await startNodeOn(check);
    const copyHead = await copy.rpc<number>("getblockcount");
    await stopNode(copy);
    if (copyHead !== facts.head) throw new Error(`a node on a copy of the built chain starts at height ${copyHead}, not ${facts.head}: the builder's node did not flush its chain`);
  } finally {
    rmSync(check, { recursive: true, force: true });
  }
  writeFileSync(join(partial, CHAIN_FILE), JSON.stringify(facts));
  rmSync(CACHE, { recursive: true, force: true });
  renameSync(partial, CACHE);
  scratch.splice(scratch.indexOf(partial), 1);
  return facts;
}

/** Reads heights 0..head, `CONCURRENCY` at a time, as the daemon's client does (batches of one, exact amounts), and does nothing else. */
async function bareLoop(url: string, head: number): Promise<{ seconds: number; txs: number }> {
  const call = async (method: string, params: unknown[]) => {
    const res = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify([{ jsonrpc: "1.0", id: 0, method, params }]) });
    const [answer] = parseExactValues(await res.text()) as { result: unknown; error: unknown }[];
    if (answer.error) throw new Error(`${method}: ${JSON.stringify(answer.error)}`);
    return answer.result;
  };
  let next = 0;
  let txs = 0;
  const started = performance.now();
  const lane = async () => {
    while (next <= head) {
      const hash = await call("getblockhash", [next++]);
      const block = (await call("getblock", [hash, 2])) as { tx: unknown[] };
      txs += block.tx.length;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  return { seconds: (performance.now() - started) / 1000, txs };
}

/** `chainwatch serve` on the config; counts its "ingested" log lines (one per ingest transaction that stored blocks). */
function spawnServe(configPath: string): { proc: Subprocess<"ignore", "pipe", "inherit">; batches: () => number } {
  const profile = CPU_PROF_DIR ? ["--cpu-prof-md", `--cpu-prof-dir=${CPU_PROF_DIR}`] : [];
  const proc = Bun.spawn([process.execPath, ...profile, CLI, "serve", "--config", configPath], { stdin: "ignore", stdout: "pipe", stderr: "inherit" });
  children.push(proc);
  let batches = 0;
  // Reads the JSON log to its end, so the daemon never blocks on a full pipe.
  (async () => {
    const utf8 = new TextDecoder();
    let rest = "";
    for await (const chunk of proc.stdout) {
      const lines = (rest + utf8.decode(chunk, { stream: true })).split("\n");
      rest = lines.pop() ?? "";
      for (const line of lines) if (line.includes('"msg":"ingested"')) batches++;
    }
  })();
  return { proc, batches: () => batches };
}

/** The daemon's config and database: one account on a plan of WATCHED slots, webhooks to `hookUrl`, the watched addresses. */
async function prepareDaemon(dir: string, rpcUrl: string, hookUrl: string): Promise<{ configPath: string; dbPath: string }> {
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
      // The network of test/follow/btc-catch-up-crash.test.ts: Litecoin's regtest address versions.
      `[networks.${NETWORK}]\nfamily = "btc"\ndecimals = 8\nconfirmations = 6\nbech32_hrp = "rltc"\np2pkh_version = 111\np2sh_version = 58\nchain = "regtest"`,
      `rpc_urls = ["${rpcUrl}"]\nfollow = true\nstart_height = 0\npoll_interval_ms = 250`,
      "",
    ].join("\n"),
  );
  const loaded = loadConfig(configPath);
  if (!loaded.ok) throw new Error(loaded.error);
  const ctx = await openContext(loaded.config, { env: {} });
  try {
    await setPlan(ctx.db, ctx.clock, { name: "bench", slots: WATCHED });
    const account = await createAccount(ctx, { name: "bench", plan: "bench" });
    if (!account.ok) throw new Error(account.error);
    await pointWebhook(ctx.db, account.account.id, hookUrl);
    for (const address of watched) {
      const added = await addWatch(ctx.db, { accountId: account.account.id, network: NETWORK, address, now: Date.now() });
      if (!added.ok) throw new Error(`watch of ${address} refused`);
    }
  } finally {
    await ctx.db.destroy();
  }
  return { configPath, dbPath };
}

/** The cached chain's facts, or null when there is no cache for these sizes. */
function cachedFacts(): ChainFacts | null {
  return existsSync(join(CACHE, CHAIN_FILE)) ? (JSON.parse(readFileSync(join(CACHE, CHAIN_FILE), "utf8")) as ChainFacts) : null;
}

async function build(): Promise<ChainFacts> {
  console.log(`building ${BLOCKS} blocks × ${TX_PER_BLOCK} tx in litecoind -regtest (kept in ${CACHE}) …`);
  const facts = await buildChain();
  console.log(`chain built in ${facts.buildSeconds.toFixed(1)} s (head ${facts.head})`);
  return facts;
}

/**
 * litecoind on a copy (in `into`) of the cached chain, building the cache first when there is
 * none, and again when its copy does not start at the height the cache recorded.
 */
async function nodeOnCachedChain(into: string): Promise<{ node: Litecoind; facts: ChainFacts; head: number }> {
  let facts = cachedFacts();
  if (facts) console.log(`chain reused from ${CACHE} (built ${facts.builtAt} in ${facts.buildSeconds.toFixed(0)} s; delete it to rebuild)`);
  else facts = await build();
  let t = performance.now();
  let { node, head } = await startOnCopy(into);
  if (head !== facts.head) {
    console.log(`the cached chain starts at height ${head}, not ${facts.head} (its node was killed before it flushed): building it again`);
    await stopNode(node);
    rmSync(CACHE, { recursive: true, force: true });
    facts = await build();
    t = performance.now();
    ({ node, head } = await startOnCopy(into));
    if (head !== facts.head) throw new Error(`the chain just built starts at height ${head} on a copy, not ${facts.head}`);
  }
  console.log(`litecoind started on a copy of the chain in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  return { node, facts, head };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const ownCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

async function main() {
  const dir = mkdtempSync(join(tmpdir(), "chainwatch-bench-follow-btc-"));
  scratch.push(dir);
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
  let proxy: ReturnType<typeof Bun.serve> | null = null;
  try {
    const { node, facts, head } = await nodeOnCachedChain(join(dir, "node"));
    const nodeUrl = node.bareUrl;
    // With a latency, both sides read through this proxy, which holds every answer LATENCY_MS.
    proxy =
      LATENCY_MS > 0
        ? Bun.serve({
            hostname: "127.0.0.1",
            port: 0,
            async fetch(req) {
              const body = await req.text();
              await Bun.sleep(LATENCY_MS);
              // A request still held when the run ends finds the node stopped: an answer, not a crash.
              return fetch(nodeUrl, { method: "POST", headers: req.headers, body }).catch((e) => new Response(String(e), { status: 502 }));
            },
          })
        : null;
    const rpcUrl = proxy ? node.url.replace(`:${node.rpcPort}/`, `:${proxy.port}/`) : node.url;

    // Baseline twice, the faster run kept (the first also brings the block files into the page cache).
    const bareRuns = [];
    for (let i = 0; i < 2; i++) {
      const [nodeCpu, ownCpu] = [cpuOf(node.pid), ownCpuMs()];
      const run = await bareLoop(rpcUrl, head);
      bareRuns.push({ ...run, nodeCpuMs: cpuOf(node.pid) - nodeCpu, ownCpuMs: ownCpuMs() - ownCpu });
    }
    const bare = [...bareRuns].sort((a, b) => a.seconds - b.seconds)[0];

    const { configPath, dbPath } = await prepareDaemon(dir, rpcUrl, `http://127.0.0.1:${sink.port}/hook`);
    const db = new Database(dbPath, { readonly: true });
    const tip = () => (db.query(`SELECT max(height) AS h FROM blocks WHERE network = '${NETWORK}'`).get() as { h: number | null }).h ?? -1;
    const load = loadAverage();
    const t = performance.now();
    const serve = spawnServe(configPath);
    const start = { serve: cpuOf(serve.proc.pid), node: cpuOf(node.pid) };
    // The first stored block ends the daemon's start-up (module loading, migrations, first look at the node).
    let first: { height: number; serve: number } | null = null;
    for (let h = tip(); h < head; h = tip()) {
      if (serve.proc.exitCode !== null) throw new Error(`chainwatch serve exited (${serve.proc.exitCode}) during the catch-up`);
      if (first === null && h >= 0) first = { height: h, serve: cpuOf(serve.proc.pid) };
      await Bun.sleep(20);
    }
    const seconds = (performance.now() - t) / 1000;
    const daemonCpuMs = cpuOf(serve.proc.pid) - start.serve;
    const nodeCpuMs = cpuOf(node.pid) - start.node;
    const afterFirst = first ? { ms: cpuOf(serve.proc.pid) - first.serve, blocks: head - first.height } : null;
    const loadAfter = loadAverage();
    // The last batch's log line may still be in the pipe.
    await Bun.sleep(200);
    const batches = serve.batches();

    // Steady state: one payment to a watched address, one block; lag = block mined → webhook received.
    await node.rpc("loadwallet", ["miner"]);
    const miner = await node.rpc<string>("getnewaddress", ["", "bech32"], "miner");
    const lags: number[] = [];
    for (let i = 0; i < LAG_SAMPLES; i++) {
      const txid = await node.rpc<string>("sendtoaddress", [watched[i % WATCHED], "0.001"], "miner");
      // Land at a random point of the poll interval.
      await Bun.sleep(Math.random() * 250);
      const started = performance.now();
      await node.rpc("generatetoaddress", [1, miner]);
      while (!payments.has(txid)) await new Promise<void>((resolve) => (onPayment = resolve));
      lags.push((payments.get(txid) as number) - started);
    }
    db.close();
    lags.sort((a, b) => a - b);

    const blocks = head + 1;
    const bps = blocks / seconds;
    const bareBps = blocks / bare.seconds;
    const perBlock = (ms: number, n = blocks) => `${Math.round((ms * 1000) / n).toLocaleString("en-US")} µs`;
    console.log("");
    console.log(`machine      ${cpus().length} vCPU ${cpus()[0]?.model ?? "?"}, load average ${load} at the start of the catch-up, ${loadAfter} at its end`);
    console.log(`chain        heights 0..${head}: ${BLOCKS} blocks × ${TX_PER_BLOCK} tx from height ${facts.firstTxHeight}, ${bare.txs} transactions with the coinbases; node latency ${LATENCY_MS} ms`);
    console.log(`chainwatch   ${bps.toFixed(0).padStart(6)} blocks/s  ${(bare.txs / seconds).toFixed(0).padStart(7)} tx/s   (catch-up from 0 to ${head} in ${seconds.toFixed(2)} s, process start included; ${batches} ingest transactions)`);
    console.log(`bare loop    ${bareBps.toFixed(0).padStart(6)} blocks/s  ${(bare.txs / bare.seconds).toFixed(0).padStart(7)} tx/s   (${CONCURRENCY} in flight, ${bare.seconds.toFixed(2)} s; runs ${bareRuns.map((r) => r.seconds.toFixed(2)).join(" s, ")} s)`);
    console.log(`ratio        ${(bps / bareBps).toFixed(2)} of the bare loop (target ≥ 0.7)`);
    console.log(`daemon CPU   ${perBlock(daemonCpuMs)} per block, ${Math.round((daemonCpuMs * 1000) / bare.txs)} µs per transaction (user + system of the serve process over the catch-up, start-up included)`);
    if (afterFirst) console.log(`             ${perBlock(afterFirst.ms, afterFirst.blocks)} per block after its first stored block (start-up left out)`);
    console.log(`bare CPU     ${perBlock(bare.ownCpuMs)} per block (this process over the faster bare run)`);
    console.log(`litecoind    ${perBlock(nodeCpuMs)} per block serving chainwatch, ${perBlock(bare.nodeCpuMs)} serving the bare loop`);
    if (lags.length > 0)
      console.log(`lag          p50 ${percentile(lags, 50).toFixed(0)} ms, p99 ${percentile(lags, 99).toFixed(0)} ms over ${LAG_SAMPLES} blocks (generatetoaddress 1 → payment webhook received; poll_interval_ms = 250)`);
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill("SIGTERM");
    await Promise.all(children.map((c) => c.exited));
    sink.stop(true);
    proxy?.stop(true);
    // Every node still running: the run's, or one a failed start or build left.
    for (const n of [...nodes]) await stopNode(n);
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
