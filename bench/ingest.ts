#!/usr/bin/env bun
// `bun run bench:ingest`: end-to-end ingest throughput of a real `chainwatch serve` subprocess over
// 1,000,000 watched addresses (1,000 accounts), against a bare Bun.serve that only parses the same
// bodies. Prints tx/s, events written/s, CPU µs per transaction (the daemon's, PostgreSQL's, the
// baseline's, from /proc), the daemon's peak RSS and the ratio to the baseline.
// Knobs (env): BENCH_POSTS, BENCH_BLOCKS_PER_POST, BENCH_ACCOUNTS, BENCH_WATCHES_PER_ACCOUNT;
// BENCH_DATABASE=postgres runs the daemon on a throwaway PostgreSQL cluster instead of SQLite;
// BENCH_DERIVED=N adds N payment orders on addresses of one account's payment wallet (derived
// addresses stay watched for good: mostly expired orders, one in a hundred pending), and 0.5 % of
// transactions pay one of them (BENCH_DERIVED_HITS, a share, 0 for none).
import { Database } from "bun:sqlite";
import type { Subprocess } from "bun";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAccount } from "../src/accounts/accounts.ts";
import { setPlan } from "../src/accounts/plans.ts";
import { loadConfig } from "../src/config/load.ts";
import { openContext } from "../src/daemon.ts";
import { openDatabase } from "../src/db/database.ts";
import { sql } from "kysely";
import { cpuOf, cpuOfTree, cpuPerUnit, startCpuWindow } from "./support/cpu.ts";
import { type BenchCluster, startCluster } from "./support/postgres.ts";

const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const ACCOUNTS = num("BENCH_ACCOUNTS", 1000);
const WATCHES_PER_ACCOUNT = num("BENCH_WATCHES_PER_ACCOUNT", 1000);
const WATCHES = ACCOUNTS * WATCHES_PER_ACCOUNT;
const TX_PER_BLOCK = 500;
const HIT_RATE = 0.01;
const BLOCKS_PER_POST = num("BENCH_BLOCKS_PER_POST", 10);
const POSTS = num("BENCH_POSTS", 200);
const IN_FLIGHT = 2;
const TOKEN = "bench-ingest-token";
const CLI = join(import.meta.dir, "../cli/index.ts");
const USDT = "0xdac17f958d2ee523a2206206994597c13d831ec7";
const ON_POSTGRES = process.env.BENCH_DATABASE === "postgres";
const DERIVED = num("BENCH_DERIVED", 0);
const DERIVED_HIT_RATE = num("BENCH_DERIVED_HITS", 0.005);
// As many pending as a wallet of that size would have: one in a hundred, at most 1,000.
const DERIVED_PENDING = Math.min(1000, Math.floor(DERIVED / 100));

const children: Subprocess[] = [];

// ---- data ---------------------------------------------------------------------------------

/** Watched address number i: deterministic, so hits can be drawn without keeping a million strings. */
const watchedAddress = (i: number) => `0x${i.toString(16).padStart(40, "0")}`;
/**
 * The address of wallet index i. Seeded as stored rows, not derived: deriving a million addresses
 * would take minutes of setup, and ingest matches an order by its stored address whatever made it.
 */
const derivedAddress = (i: number) => `0xdd${i.toString(16).padStart(38, "0")}`;

// Random hex from a refilled pool: generating 100 MB of bodies must not dominate the setup time.
let pool = "";
function randomHex(chars: number): string {
  if (pool.length < chars) pool = Buffer.from(crypto.getRandomValues(new Uint8Array(65536))).toString("hex");
  const out = pool.slice(0, chars);
  pool = pool.slice(chars);
  return out;
}
const randomAddress = () => `0x${randomHex(40)}`;

// Each block names the one before it as its parent: ingest refuses a block that does not connect.
let lastHash = `0x${"0".repeat(64)}`;

/** One block: 1 % of transactions pay a watched address (half native, half USDT), a fifth carry a token transfer. */
function makeBlock(height: number) {
  const transactions = [];
  for (let i = 0; i < TX_PER_BLOCK; i++) {
    const hit = Math.random() < HIT_RATE;
    const paysOrder = !hit && DERIVED > 0 && Math.random() < DERIVED_HIT_RATE;
    const to = hit ? watchedAddress(Math.floor(Math.random() * WATCHES)) : paysOrder ? derivedAddress(Math.floor(Math.random() * DERIVED)) : randomAddress();
    const viaToken = hit ? Math.random() < 0.5 : !paysOrder && Math.random() < 0.2;
    const value = String(1 + Math.floor(Math.random() * 1e12));
    transactions.push(
      viaToken
        ? { hash: `0x${randomHex(64)}`, from: randomAddress(), to: USDT, value: "0", transfers: [{ asset: USDT, from: randomAddress(), to, value, decimals: 6 }] }
        : { hash: `0x${randomHex(64)}`, from: randomAddress(), to, value },
    );
  }
  const hash = `0x${randomHex(64)}`;
  const parent_hash = lastHash;
  lastHash = hash;
  return { network: "eth", height, hash, parent_hash, timestamp: 1763750000 + height, transactions };
}

// ---- setup --------------------------------------------------------------------------------

/** Accounts through the real code (their secrets are sealed), the million watches straight into the database. */
async function seed(configPath: string, dbUrl: string): Promise<void> {
  const loaded = loadConfig(configPath);
  if (!loaded.ok) throw new Error(loaded.error);
  const ctx = await openContext(loaded.config, { env: {} });
  await setPlan(ctx.db, ctx.clock, { name: "bench", slots: WATCHES_PER_ACCOUNT });
  const accountIds: string[] = [];
  for (let a = 0; a < ACCOUNTS; a++) {
    const created = await createAccount(ctx, { name: `bench-${a}`, plan: "bench" });
    if (!created.ok) throw new Error(created.error);
    accountIds.push(created.account.id);
  }
  if (ON_POSTGRES) {
    const rows = (from: number, to: number) =>
      Array.from({ length: to - from }, (_, k) => from + k).map((i) => ({
        id: `aw_${i.toString(16).padStart(24, "0")}`,
        account_id: accountIds[Math.floor(i / WATCHES_PER_ACCOUNT)],
        network: "eth",
        address: watchedAddress(i),
        created_at: Date.now(),
      }));
    for (let i = 0; i < WATCHES; i += 10_000) await ctx.db.insertInto("watches").values(rows(i, Math.min(WATCHES, i + 10_000))).execute();
    if (DERIVED > 0) {
      await ctx.db.insertInto("payment_wallets").values(walletRow(accountIds[0])).execute();
      for (let i = 0; i < DERIVED; i += 5_000)
        await ctx.db
          .insertInto("payments")
          .values(Array.from({ length: Math.min(DERIVED, i + 5_000) - i }, (_, k) => derivedOrder(accountIds[0], i + k)))
          .execute();
    }
    await sql`analyze`.execute(ctx.db);
    await ctx.db.destroy();
    return;
  }
  await ctx.db.destroy();

  const sqlite = new Database(dbUrl.replace(/^sqlite:\/\//, ""));
  sqlite.run("PRAGMA journal_mode = WAL");
  sqlite.run("PRAGMA synchronous = NORMAL");
  const insert = sqlite.prepare("INSERT INTO watches (id, account_id, network, address, created_at) VALUES (?, ?, ?, ?, ?)");
  const chunk = sqlite.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) insert.run(`aw_${i.toString(16).padStart(24, "0")}`, accountIds[Math.floor(i / WATCHES_PER_ACCOUNT)], "eth", watchedAddress(i), Date.now());
  });
  for (let i = 0; i < WATCHES; i += 100_000) chunk(i, Math.min(WATCHES, i + 100_000));
  if (DERIVED > 0) {
    const w = walletRow(accountIds[0]);
    sqlite.prepare(`INSERT INTO payment_wallets (${Object.keys(w).join(", ")}) VALUES (${Object.keys(w).map(() => "?").join(", ")})`).run(...(Object.values(w) as never[]));
    const columns = Object.keys(derivedOrder(accountIds[0], 0));
    const insertOrder = sqlite.prepare(`INSERT INTO payments (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`);
    const orders = sqlite.transaction((from: number, to: number) => {
      for (let i = from; i < to; i++) insertOrder.run(...(Object.values(derivedOrder(accountIds[0], i)) as never[]));
    });
    for (let i = 0; i < DERIVED; i += 100_000) orders(i, Math.min(DERIVED, i + 100_000));
  }
  sqlite.run("ANALYZE");
  sqlite.close();
}

/** The payment wallet the derived orders came from (its key is never read: every order is made already). */
function walletRow(accountId: string) {
  const now = Date.now();
  return {
    id: "wlt_bench",
    account_id: accountId,
    network: "eth",
    key_id: "bench",
    key_sealed: "v1.bench.bench",
    kind: "bip44",
    fingerprint: "00000000",
    gap_limit: 20,
    next_index: DERIVED,
    last_paid_index: null,
    gap_notice_tail: 0,
    active: 1,
    created_at: now,
    updated_at: now,
  };
}

/** The order at wallet index i: expired, except the last DERIVED_PENDING, still waiting. Its address is none of the watched ones. */
function derivedOrder(accountId: string, i: number) {
  const now = Date.now();
  const pending = i >= DERIVED - DERIVED_PENDING;
  return {
    id: `pay_${i.toString(16).padStart(24, "0")}`,
    account_id: accountId,
    order_id: `derived-${i}`,
    network: "eth",
    address: derivedAddress(i),
    asset: null,
    decimals: 18,
    amount_raw: "1000000000000000000",
    received_raw: "0",
    confirmed_raw: "0",
    status: pending ? "pending" : "expired",
    tx_hash: null,
    expires_at: pending ? now + 30 * 86_400_000 : now - 1,
    aml: null,
    created_at: now,
    updated_at: now,
    wallet_id: "wlt_bench",
    derivation_index: i,
    checkout_token: `bench-token-${i}`,
    checkout_key: `bench-key-${i}`,
    description: null,
    redirect_url: null,
  };
}

/** Spawns a server process and resolves with its base URL, read from its first matching stdout line. */
async function spawnServer(argv: string[], urlFrom: (line: string) => string | null): Promise<{ proc: Subprocess<"ignore", "pipe", "inherit">; url: string }> {
  const proc = Bun.spawn(argv, { stdin: "ignore", stdout: "pipe", stderr: "inherit" });
  children.push(proc);
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${argv.join(" ")} exited before listening`);
    buffered += decoder.decode(value);
    for (const line of buffered.split("\n")) {
      const url = urlFrom(line);
      if (url) {
        // Keep draining stdout so the child never blocks on a full pipe.
        (async () => {
          while (!(await reader.read()).done) {}
        })();
        return { proc, url };
      }
    }
  }
}

const BASELINE = `
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  maxRequestBodySize: 64 * 1024 * 1024,
  async fetch(req) {
    const body = await req.json();
    return Response.json({ blocks: Array.isArray(body) ? body.length : 1, events: 0 }, { status: 202 });
  },
});
console.log("listening " + server.url.href);
`;

/** Peak resident set size of a process in MB (VmHWM). */
function peakRssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((l) => l.startsWith("VmHWM:"));
  return Number(line?.match(/(\d+)/)?.[1] ?? 0) / 1024;
}

async function stop(proc: Subprocess): Promise<void> {
  proc.kill("SIGTERM");
  await proc.exited;
}

// ---- run ----------------------------------------------------------------------------------

type RunResult = { seconds: number; blocks: number; events: number };

/** POSTs every body, IN_FLIGHT at a time, and sums the answers. */
async function push(url: string, bodies: string[]): Promise<RunResult> {
  let next = 0;
  let blocks = 0;
  let events = 0;
  const started = performance.now();
  const lane = async () => {
    while (next < bodies.length) {
      const body = bodies[next++];
      const res = await fetch(`${url}/ingest/blocks`, {
        method: "POST",
        body,
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${TOKEN}` },
      });
      const answer = (await res.json()) as { blocks: number; events: number; error?: string };
      if (res.status !== 202) throw new Error(`ingest answered ${res.status}: ${answer.error}`);
      blocks += answer.blocks;
      events += answer.events;
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  return { seconds: (performance.now() - started) / 1000, blocks, events };
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), "chainwatch-bench-ingest-"));
  let cluster: BenchCluster | null = null;
  try {
    cluster = ON_POSTGRES ? await startCluster() : null;
    const dbUrl = cluster ? await cluster.createDatabase("ingest") : `sqlite://${join(dir, "cw.db")}`;
    const configPath = join(dir, "cw.toml");
    writeFileSync(
      configPath,
      [
        `[server]\nhost = "127.0.0.1"\nport = 0`,
        `[database]\nurl = "${dbUrl}"`,
        `[secrets]\nmaster_key_file = "${dir}/master.key"`,
        `[ingest]\ntoken = "${TOKEN}"`,
        "",
      ].join("\n"),
    );

    let t = performance.now();
    await seed(configPath, dbUrl);
    console.log(
      `seeded ${ACCOUNTS} accounts and ${WATCHES.toLocaleString("en")} watches${DERIVED > 0 ? ` and ${DERIVED.toLocaleString("en")} orders on derived addresses` : ""} in ${((performance.now() - t) / 1000).toFixed(1)} s`,
    );

    t = performance.now();
    let height = 20_000_000;
    // The warm-up block comes first on the chain, so the timed batches extend the tip.
    const warmUp = JSON.stringify(makeBlock(height++));
    const bodies = Array.from({ length: POSTS }, () => JSON.stringify(Array.from({ length: BLOCKS_PER_POST }, () => makeBlock(height++))));
    const txTotal = POSTS * BLOCKS_PER_POST * TX_PER_BLOCK;
    const mb = bodies.reduce((n, b) => n + b.length, 0) / 1e6;
    console.log(`generated ${POSTS} batches of ${BLOCKS_PER_POST} × ${TX_PER_BLOCK} tx (${txTotal.toLocaleString("en")} tx, ${mb.toFixed(0)} MB) in ${((performance.now() - t) / 1000).toFixed(1)} s`);

    const baseline = await spawnServer([process.execPath, "-e", BASELINE], (l) => (l.startsWith("listening ") ? l.slice(10).replace(/\/$/, "") : null));
    const bareCpu = startCpuWindow({ baseline: () => cpuOf(baseline.proc.pid) });
    const bare = await push(baseline.url, bodies);
    const bareUs = cpuPerUnit(bareCpu(), txTotal).baseline;
    await stop(baseline.proc);

    const daemon = await spawnServer([process.execPath, CLI, "serve", "--config", configPath], (l) => {
      if (!l.includes('"listening"')) return null;
      return (JSON.parse(l).url as string).replace(/\/$/, "");
    });
    // Warm-up outside the timed run: JIT, the SQLite page cache of the watches index.
    await push(daemon.url, [warmUp]);
    const pgPid = cluster?.pid;
    const realCpu = startCpuWindow({ daemon: () => cpuOf(daemon.proc.pid), ...(pgPid ? { postgres: () => cpuOfTree(pgPid) } : {}) });
    const real = await push(daemon.url, bodies);
    const realUs = cpuPerUnit(realCpu(), txTotal);
    const rss = peakRssMb(daemon.proc.pid);
    await stop(daemon.proc);
    const stored = openDatabase(dbUrl);
    const rows = Number((await sql<{ n: number }>`select count(*) as n from events`.execute(stored)).rows[0].n);
    const transfers = (await sql<{ n: number; late: number }>`select count(*) as n, coalesce(sum(late), 0) as late from payment_transfers`.execute(stored)).rows[0];
    await stored.destroy();

    const txPerSec = txTotal / real.seconds;
    const bareTxPerSec = txTotal / bare.seconds;
    console.log("");
    console.log(`chainwatch   ${txPerSec.toFixed(0).padStart(9)} tx/s   ${(real.events / real.seconds).toFixed(0).padStart(9)} events/s   (${real.blocks} blocks, ${real.events.toLocaleString("en")} events in ${real.seconds.toFixed(2)} s)`);
    console.log(`             ${rows.toLocaleString("en")} event rows stored: a block event is one row shared by its ${ACCOUNTS} receiving accounts`);
    if (DERIVED > 0)
      console.log(`             ${Number(transfers.n).toLocaleString("en")} payments to derived addresses recorded on their orders (${Number(transfers.late).toLocaleString("en")} late)`);
    console.log(`baseline     ${bareTxPerSec.toFixed(0).padStart(9)} tx/s   (Bun.serve + JSON parse only, ${bare.seconds.toFixed(2)} s)`);
    console.log(`ratio        ${(txPerSec / bareTxPerSec).toFixed(2)} of the baseline`);
    const ours = realUs.daemon + (realUs.postgres ?? 0);
    const pgPart = realUs.postgres === undefined ? "" : ` = daemon ${realUs.daemon} + PostgreSQL ${realUs.postgres}`;
    console.log(`CPU µs/tx    ${ours}${pgPart}   (baseline ${bareUs}; ${(ours / Math.max(1, bareUs)).toFixed(1)}× the baseline) on ${ON_POSTGRES ? "PostgreSQL" : "SQLite"}`);
    console.log(`peak RSS     ${rss.toFixed(0)} MB (daemon VmHWM)`);
    console.log(`targets      ≥ 50,000 tx/s: ${txPerSec >= 50_000 ? "met" : "MISSED"}; RSS ≤ 500 MB: ${rss <= 500 ? "met" : "MISSED"}`);
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
    cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
