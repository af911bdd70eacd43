#!/usr/bin/env bun
// `bun run bench:follow`: catch-up throughput of a real `chainwatch serve` subprocess following a
// local anvil node pre-filled with 1,000 blocks × 100 transactions (half ETH, half ERC-20
// transfers, 1 % to watched addresses), against a bare loop in this process that fetches the same
// blocks and receipts from the same node with the same concurrency and does nothing else. Then
// the steady-state lag: a block is mined, how long until its payment webhook reaches a receiver
// (poll_interval_ms = 250). CPU µs per block from /proc: the daemon's (and PostgreSQL's), the bare
// loop's, and anvil's for each.
// Knobs (env): BENCH_BLOCKS, BENCH_TX_PER_BLOCK, BENCH_LAG_SAMPLES; BENCH_DATABASE=postgres runs
// the daemon on a throwaway PostgreSQL cluster instead of SQLite; BENCH_QUORUM=2 runs the daemon
// twice over the same chain, with quorum = 1 and with quorum = 2 (the node under a second URL),
// the account's webhook held for min_confirmations = 1 in both, so every block with a payment
// waits for the quorum, and prints the two side by side. BENCH_TRACES=debug|parity has
// the daemon trace every block (`traces` of the network; `bun run bench:follow-traces` is debug):
// its CPU µs per block against a run without is what tracing costs the follower.
import type { Subprocess } from "bun";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Address, encodeFunctionData, numberToHex } from "viem";
import { foundry } from "viem/chains";
import { createAccount } from "../src/accounts/accounts.ts";
import { setPlan } from "../src/accounts/plans.ts";
import { loadConfig } from "../src/config/load.ts";
import { openContext } from "../src/daemon.ts";
import { openDatabase } from "../src/db/database.ts";
import { sql } from "kysely";
import { cpuOf, cpuOfTree, cpuPerUnit, startCpuWindow } from "./support/cpu.ts";
import { type BenchCluster, startCluster } from "./support/postgres.ts";
import { addWatch } from "../src/watch/watches.ts";
import { type Anvil, startAnvil } from "../test/support/anvil.ts";
import { testTokenAbi, testTokenBytecode } from "../test/support/contracts/test-token.ts";
import { pointWebhook } from "./support/endpoint.ts";

const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const BLOCKS = num("BENCH_BLOCKS", 1000);
const TX_PER_BLOCK = num("BENCH_TX_PER_BLOCK", 100);
const LAG_SAMPLES = num("BENCH_LAG_SAMPLES", 60);
const WATCHED = 10;
// The follower's fetch-ahead window (createChainFollower's default); the bare loop uses the same.
const CONCURRENCY = 8;
const SENDERS = 10;
const CLI = join(import.meta.dir, "../cli/index.ts");
const children: Subprocess[] = [];
const ON_POSTGRES = process.env.BENCH_DATABASE === "postgres";
const QUORUM = num("BENCH_QUORUM", 1);
const TRACES = process.env.BENCH_TRACES ?? "off";
/** CPU ms this process has used so far (the bare loop runs in it). */
const ownCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

const watched = (i: number) => `0x${(0xbe000000 + i).toString(16).padStart(40, "0")}` as Address;
// Recipients come from a pool of 1,000 addresses: a fresh account per transaction would grow
// anvil's state (and slow every block it mines) without changing what chainwatch does.
const RECIPIENTS = Array.from({ length: 1000 }, () => `0x${Buffer.from(crypto.getRandomValues(new Uint8Array(20))).toString("hex")}` as Address);
const randomAddress = () => RECIPIENTS[Math.floor(Math.random() * RECIPIENTS.length)];

async function rpc<T>(url: string, body: unknown): Promise<T> {
  const res = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  return (await res.json()) as T;
}

/**
 * Fills the chain fast: automine off, each block's 100 eth_sendTransaction calls go in one
 * JSON-RPC batch (gas given, so anvil estimates nothing), then one evm_mine. Senders are anvil's
 * unlocked dev accounts, so nothing is signed in this process.
 */
async function prefill(anvil: Anvil, token: Address): Promise<void> {
  const senders = anvil.accounts.slice(1, 1 + SENDERS);
  await anvil.test.setAutomine(false);
  for (let b = 0; b < BLOCKS; b++) {
    const calls = [];
    for (let i = 0; i < TX_PER_BLOCK; i++) {
      const from = senders[i % SENDERS];
      // 1 % of transactions pay a watched address; the rest go to fresh random addresses.
      const to = (b * TX_PER_BLOCK + i) % 100 === 0 ? watched((b + i) % WATCHED) : randomAddress();
      const tx =
        i % 2 === 0
          ? { from, to, value: numberToHex(1_000_000n + BigInt(i)), gas: "0x5208" }
          : { from, to: token, gas: numberToHex(80_000), data: encodeFunctionData({ abi: testTokenAbi, functionName: "transfer", args: [to, 1_000n + BigInt(i)] }) };
      calls.push({ jsonrpc: "2.0", id: i, method: "eth_sendTransaction", params: [tx] });
    }
    const answers = await rpc<{ error?: { message: string } }[]>(anvil.url, calls);
    const failed = answers.find((a) => a.error);
    if (failed) throw new Error(`prefill: ${failed.error?.message}`);
    await anvil.rpc("evm_mine");
  }
  await anvil.test.setAutomine(true);
}

/** Fetches heights 1..head, `CONCURRENCY` at a time: block with transactions and its receipts, parsed, nothing else. */
async function bareLoop(url: string, head: number): Promise<{ seconds: number; txs: number }> {
  let next = 1;
  let txs = 0;
  const started = performance.now();
  const lane = async () => {
    while (next <= head) {
      const h = numberToHex(next++);
      const block = await rpc<{ result: { hash: string; transactions: unknown[] } }>(url, { jsonrpc: "2.0", id: 1, method: "eth_getBlockByNumber", params: [h, true] });
      const receipts = await rpc<{ result: unknown[] }>(url, { jsonrpc: "2.0", id: 2, method: "eth_getBlockReceipts", params: [block.result.hash] });
      if (receipts.result.length !== block.result.transactions.length) throw new Error("receipts missing");
      txs += block.result.transactions.length;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  return { seconds: (performance.now() - started) / 1000, txs };
}

async function spawnServe(configPath: string): Promise<Subprocess<"ignore", "pipe", "inherit">> {
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
  const dir = mkdtempSync(join(tmpdir(), "chainwatch-bench-follow-"));
  let cluster: BenchCluster | null = null;
  const anvil = await startAnvil(["--gas-limit", "100000000"]);
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
    let t = performance.now();
    const deploy = await anvil.wallet.deployContract({ abi: testTokenAbi, bytecode: testTokenBytecode, args: [6, 10n ** 30n], account: anvil.accounts[0], chain: foundry });
    const token = (await anvil.public.waitForTransactionReceipt({ hash: deploy })).contractAddress as Address;
    for (const s of anvil.accounts.slice(1, 1 + SENDERS)) {
      await anvil.wallet.sendTransaction({ account: anvil.accounts[0], chain: foundry, to: token, data: encodeFunctionData({ abi: testTokenAbi, functionName: "transfer", args: [s, 10n ** 28n] }) });
    }
    await prefill(anvil, token);
    const head = Number(await anvil.public.getBlockNumber());
    console.log(`anvil pre-filled: ${BLOCKS} blocks × ${TX_PER_BLOCK} tx (head ${head}) in ${((performance.now() - t) / 1000).toFixed(1)} s`);

    // Baseline first (it also warms anvil's caches for both runs alike), twice, the better run kept.
    const bareRuns = [];
    for (let run = 0; run < 2; run++) {
      const window = startCpuWindow({ loop: ownCpuMs, anvil: () => cpuOf(anvil.pid) });
      const result = await bareLoop(anvil.url, head);
      bareRuns.push({ ...result, cpu: cpuPerUnit(window(), head) });
    }
    const bare = bareRuns.sort((a, b) => a.seconds - b.seconds)[0];

    /** One daemon following the pre-filled chain from 0, then the steady-state lag. */
    const runDaemon = async (quorum: number) => {
    cluster ??= ON_POSTGRES ? await startCluster() : null;
    const dbUrl = cluster ? await cluster.createDatabase(`follow${quorum}`) : `sqlite://${join(dir, `cw${quorum}.db`)}`;
    const configPath = join(dir, `cw${quorum}.toml`);
    payments.clear();
    writeFileSync(
      configPath,
      [
        `[server]\nhost = "127.0.0.1"\nport = 0`,
        `[database]\nurl = "${dbUrl}"`,
        `[secrets]\nmaster_key_file = "${dir}/master.key"`,
        `[delivery]\nallow_private_targets = true`,
        `[billing]\nenabled = false`,
        `[networks.anv]\nfamily = "evm"\nconfirmations = 1\nrpc_urls = ${JSON.stringify(quorum > 1 ? [anvil.url, `http://localhost:${anvil.port}`] : [anvil.url])}\nfollow = true\nstart_height = 0\npoll_interval_ms = 250\nquorum = ${quorum}\ntraces = "${TRACES}"`,
        "",
      ].join("\n"),
    );
    const loaded = loadConfig(configPath);
    if (!loaded.ok) throw new Error(loaded.error);
    const ctx = await openContext(loaded.config, { env: {} });
    await setPlan(ctx.db, ctx.clock, { name: "bench", slots: WATCHED });
    const account = await createAccount(ctx, { name: "bench", plan: "bench" });
    if (!account.ok) throw new Error(account.error);
    await pointWebhook(ctx.db, account.account.id, `http://127.0.0.1:${sink.port}/hook`, QUORUM > 1 ? { events: { min_confirmations: 1 } } : {});
    for (let i = 0; i < WATCHED; i++) await addWatch(ctx.db, { accountId: account.account.id, network: "anv", address: watched(i), now: Date.now() });
    await ctx.db.destroy();

    const db = openDatabase(dbUrl);
    const tip = async () => Number((await sql<{ h: number | null }>`select max(height) as h from blocks where network = 'anv'`.execute(db)).rows[0].h ?? -1);
    t = performance.now();
    const serve = await spawnServe(configPath);
    const pgPid = cluster?.pid;
    // CPU is counted from the first block stored: start-up (migrations, JIT) is not a block's cost.
    while ((await tip()) < 0) await Bun.sleep(5);
    const from = await tip();
    const followCpu = startCpuWindow({ daemon: () => cpuOf(serve.pid), anvil: () => cpuOf(anvil.pid), ...(pgPid ? { postgres: () => cpuOfTree(pgPid) } : {}) });
    while ((await tip()) < head) await Bun.sleep(20);
    const seconds = (performance.now() - t) / 1000;
    const cpu = cpuPerUnit(followCpu(), head - from);

    // Steady state: one block at a time, each paying a watched address; lag = mined → webhook received.
    const lags: number[] = [];
    for (let i = 0; i < LAG_SAMPLES; i++) {
      // Land at a random point of the poll interval.
      await Bun.sleep(Math.random() * 250);
      const started = performance.now();
      const hash = await anvil.sendEth(anvil.accounts[0], watched(i % WATCHED), 1n);
      while (!payments.has(hash)) await new Promise<void>((resolve) => (onPayment = resolve));
      lags.push((payments.get(hash) as number) - started);
    }
    await db.destroy();
    serve.kill("SIGTERM");
    await serve.exited;
    lags.sort((a, b) => a - b);
    return { seconds, cpu, lags };
  };

    const runs = [];
    for (const quorum of QUORUM > 1 ? [1, QUORUM] : [1]) runs.push({ quorum, ...(await runDaemon(quorum)) });
    const { seconds, cpu, lags } = runs[0];
    // Both read heights 1..head (chainwatch also reads the genesis block).
    const bps = head / seconds;
    const txs = bare.txs;
    const bareBps = head / bare.seconds;
    console.log("");
    console.log(`chainwatch   ${bps.toFixed(0).padStart(6)} blocks/s  ${(txs / seconds).toFixed(0).padStart(7)} tx/s   (catch-up from 0 to ${head} in ${seconds.toFixed(2)} s, process start included)`);
    console.log(`bare loop    ${bareBps.toFixed(0).padStart(6)} blocks/s  ${(bare.txs / bare.seconds).toFixed(0).padStart(7)} tx/s   (${CONCURRENCY} in flight, ${bare.seconds.toFixed(2)} s)`);
    console.log(`ratio        ${(bps / bareBps).toFixed(2)} of the bare loop (target ≥ 0.7)`);
    const ours = cpu.daemon + (cpu.postgres ?? 0);
    const pgPart = cpu.postgres === undefined ? "" : ` = daemon ${cpu.daemon} + PostgreSQL ${cpu.postgres}`;
    console.log(
      `CPU µs/block ${ours}${pgPart} from the first block stored (bare loop ${bare.cpu.loop}; ${(ours / Math.max(1, bare.cpu.loop)).toFixed(1)}× it); ` +
        `anvil ${cpu.anvil} for chainwatch, ${bare.cpu.anvil} for the bare loop; on ${ON_POSTGRES ? "PostgreSQL" : "SQLite"}; traces ${TRACES}`,
    );
    console.log(`lag          p50 ${percentile(lags, 50).toFixed(0)} ms, p99 ${percentile(lags, 99).toFixed(0)} ms over ${LAG_SAMPLES} blocks (transaction sent with automine → payment webhook received; poll_interval_ms = 250)`);
    if (runs.length > 1) {
      console.log("");
      console.log("quorum       catch-up ratio   CPU µs/block   lag p50   (webhooks held for min_confirmations = 1)");
      for (const r of runs) {
        const daemonCpu = r.cpu.daemon + (r.cpu.postgres ?? 0);
        console.log(`${String(r.quorum).padEnd(12)} ${(head / r.seconds / bareBps).toFixed(2).padStart(14)}   ${String(daemonCpu).padStart(12)}   ${percentile(r.lags, 50).toFixed(0).padStart(5)} ms`);
      }
      const [one, two] = runs.map((r) => r.cpu.daemon + (r.cpu.postgres ?? 0));
      console.log(`quorum ${QUORUM} costs ${(((two - one) / Math.max(1, one)) * 100).toFixed(1)} % more CPU per block than quorum 1 (target < 10 %)`);
    }
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill("SIGTERM");
    await Promise.all(children.map((c) => c.exited));
    sink.stop(true);
    await anvil.stop();
    (cluster as BenchCluster | null)?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
