// The replay run of `bun run bench:deliver` (BENCH_REPLAY=1): one account floods
// POST /v1/address-watch/events/replay while another account's webhooks are timed.
//
// The replaying account has 15,000 stored payment events (more than `delivery.max_replay_pending`,
// 10,000 by default) and calls `{"since": 0}` BENCH_REPLAY_CALLS times (default 70), one every
// BENCH_REPLAY_EVERY_MS (default 400): the flood that once queued 700,000 deliveries in 28 s. Now
// each call queues only what the cap leaves room for (the first 10,000; later, as many as have
// drained meanwhile) or answers 429, so the replay backlog stays at the cap for the whole flood and
// then drains. Meanwhile a second account's watched address is paid by one ingested block every
// ~100 ms (for 5 s alone first, its baseline), each of its webhooks timed from the ingest POST to
// its arrival. Reported: what the calls
// answered and queued, the largest replay backlog seen, the database's size after, the other
// account's latency while the replay backlog is outstanding (target p99 < 100 ms), and CPU µs per
// delivery.
import type { Subprocess } from "bun";
import { existsSync, statSync } from "node:fs";
import { createHash, createHmac } from "node:crypto";
import { sql } from "kysely";
import { createApiKey } from "../src/accounts/api-keys.ts";
import { createAccount } from "../src/accounts/accounts.ts";
import { setPlan } from "../src/accounts/plans.ts";
import { loadConfig } from "../src/config/load.ts";
import { openContext } from "../src/daemon.ts";
import type { Db } from "../src/db/database.ts";
import type { NewEvent } from "../src/db/schema.ts";
import { insertEvents } from "../src/watch/events.ts";
import { addWatch } from "../src/watch/watches.ts";
import { cpuOf, cpuOfTree, type CpuWindow, startCpuWindow } from "./support/cpu.ts";
import { spawnDaemons, stopAll, writeDaemonConfig } from "./support/daemons.ts";
import { payingBlock, postBlock } from "./support/paying-block.ts";
import type { BenchCluster } from "./support/postgres.ts";
import type { Scenario } from "./support/scenarios.ts";
import { pointWebhook } from "./support/endpoint.ts";

export const STORED = 15_000;
const LIVE_EVERY_MS = 100;
const BASELINE_MS = 5_000;
const INGEST_TOKEN = "bench-token";
const LIVE_ADDRESS = "0x52908400098527886e0f7030069857d2e4169ee7";
const REPLAY_ADDRESS = "0x3f5ce5fbfe3e9af3971dd833d26ba9b5c936f0be";

/** Wall-clock milliseconds with sub-ms precision, comparable across processes on one machine. */
const wallNow = () => performance.timeOrigin + performance.now();

export type ReplayEnv = {
  scenario: Scenario;
  dir: string;
  url: string;
  /** The receiver's base URL: it counts arrivals per path (`/stats`) and times each tx hash (`/tx/<hash>`). */
  base: string;
  receiver: Subprocess;
  cluster: BenchCluster | undefined;
  concurrency: number;
  calls: number;
  everyMs: number;
  track: (p: Subprocess) => void;
};

export type ReplayOutcome = {
  scenario: Scenario;
  /** Statuses the replay calls got, with how many of each. */
  answers: Record<string, number>;
  queued: number;
  /** The most replayed deliveries seen waiting at once (read after each call). */
  maxWaiting: number;
  floodMs: number;
  drainMs: number;
  databaseBytes: number;
  live: number;
  p50: number;
  p99: number;
  /** The other account's latency in the BASELINE_MS before the first replay call. */
  alone: { blocks: number; p50: number; p99: number };
  slowest: { ms: number; sinceStart: number }[];
  cpu: CpuWindow;
  deliveries: number;
};

type PathStats = { count: number; unique: number; first: number; last: number };

function signed(key: { api_key: string; secret: string }, method: string, path: string, body: string): Record<string, string> {
  const ts = String(Math.floor(Date.now() / 1000));
  const canonical = `${ts}\n${method}\n${path}\n${createHash("sha256").update(body).digest("hex")}`;
  return { "Content-Type": "application/json", "X-Api-Key": key.api_key, "X-Timestamp": ts, "X-Signature": createHmac("sha256", key.secret).update(canonical).digest("hex") };
}

/** `count` stored payment events of the account, an hour old, each with its own tx hash. */
async function storedEvents(db: Db, accountId: string, watchId: string, count: number): Promise<void> {
  const createdAt = Date.now() - 3_600_000;
  const rows: NewEvent[] = Array.from({ length: count }, (_, i) => {
    const id = `evt_${(createdAt + i).toString(16).padStart(12, "0")}${i.toString(16).padStart(12, "0")}`;
    const tx = `0x${(0xdead0000 + i).toString(16).padStart(64, "0")}`;
    const body = JSON.stringify({
      id,
      type: "payment",
      direction: "in",
      watch_id: watchId,
      network: "eth",
      address: REPLAY_ADDRESS,
      tx_hash: tx,
      block_height: 1_000 + i,
      block_hash: `0x${(1_000 + i).toString(16).padStart(64, "0")}`,
      asset: null,
      amount: "1.5",
      amount_raw: "1500000000000000000",
      created_at: new Date(createdAt + i).toISOString().replace("Z", "+00:00"),
      removed: false,
    });
    return { id, account_id: accountId, type: "payment", network: "eth", watch_id: watchId, dedupe_key: `bench-replay:${i}`, body, created_at: createdAt + i, block_height: 1_000 + i, block_hash: null };
  });
  await db.transaction().execute((trx) => insertEvents(trx, rows));
}

/** One POST /v1/address-watch/events/replay of everything stored; answers the status and what it queued. */
async function replayAll(daemonUrl: string, key: { api_key: string; secret: string }): Promise<{ status: number; queued: number }> {
  const body = JSON.stringify({ since: 0 });
  const res = await fetch(`${daemonUrl}/v1/address-watch/events/replay`, { method: "POST", headers: signed(key, "POST", "/v1/address-watch/events/replay", body), body });
  const json = (await res.json()) as { queued?: number; error?: string };
  if (res.status !== 202 && res.status !== 429) throw new Error(`replay answered ${res.status}: ${JSON.stringify(json)}`);
  return { status: res.status, queued: json.queued ?? 0 };
}

async function waitingReplays(db: Db): Promise<number> {
  const row = await sql<{ n: number | string }>`select count(*) as n from deliveries where replay = 1 and status in ('pending', 'held', 'paused')`.execute(db);
  return Number(row.rows[0].n);
}

async function arrivedAt(base: string, path: string): Promise<PathStats> {
  const stats = (await (await fetch(`${base}/stats`)).json()) as { paths: Record<string, PathStats> };
  return stats.paths[path] ?? { count: 0, unique: 0, first: 0, last: 0 };
}

async function databaseBytes(db: Db, url: string): Promise<number> {
  if (url.startsWith("sqlite://")) {
    const file = url.slice("sqlite://".length);
    return [file, `${file}-wal`].filter(existsSync).reduce((sum, f) => sum + statSync(f).size, 0);
  }
  const row = await sql<{ n: string }>`select pg_database_size(current_database()) as n`.execute(db);
  return Number(row.rows[0].n);
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export async function runReplay(env: ReplayEnv): Promise<ReplayOutcome> {
  const configPath = writeDaemonConfig(env.dir, env.url, [
    "[ingest]",
    `token = "${INGEST_TOKEN}"`,
    "[rate_limit]",
    "per_key_rps = 1000",
    "[delivery]",
    "allow_private_targets = true",
    `concurrency = ${env.concurrency}`,
  ]);
  const loaded = loadConfig(configPath);
  if (!loaded.ok) throw new Error(loaded.error);
  const ctx = await openContext(loaded.config, { env: {} });
  const daemons: Subprocess[] = [];
  try {
    const plan = await setPlan(ctx.db, ctx.clock, { name: "bench", slots: 1 });
    if (!plan.ok) throw new Error(plan.error);
    const account = async (name: string, path: string, address: string) => {
      const made = await createAccount(ctx, { name, plan: "bench", credits: 1_000_000_000_000 });
      if (!made.ok) throw new Error(made.error);
      // Payments only: one webhook per paying block (no block events).
      await pointWebhook(ctx.db, made.account.id, `${env.base}${path}`, { events: { block: false } });
      const watch = await addWatch(ctx.db, { accountId: made.account.id, network: "eth", address, now: Date.now() });
      if (!watch.ok) throw new Error(watch.error);
      const key = await createApiKey(ctx, { accountId: made.account.id, allowIps: [] });
      if (!key.ok) throw new Error(key.error);
      return { id: made.account.id, key: key.key, watchId: watch.watch.id };
    };
    const replaying = await account("replaying", "/replay", REPLAY_ADDRESS);
    await account("live", "/live", LIVE_ADDRESS);
    await storedEvents(ctx.db, replaying.id, replaying.watchId, STORED);
    if (env.cluster) await sql`analyze`.execute(ctx.db);

    const profile = process.env.BENCH_PROFILE_DIR ? ["--cpu-prof-md", `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : [];
    const started = await spawnDaemons(configPath, env.scenario.daemons, (p) => (daemons.push(p), env.track(p)), profile);
    const urls = started.map((d) => d.url);
    // Warm the live path: a few paid blocks before the window.
    const WARM_UP = 20;
    for (let i = 0; i < WARM_UP; i++) await postBlock(urls[i % urls.length], INGEST_TOKEN, payingBlock(20_000_000 + i, 900_000 + i, LIVE_ADDRESS).block);
    await Bun.sleep(1500);
    await fetch(`${env.base}/reset`);

    const window = startCpuWindow({
      daemons: () => daemons.reduce((sum, d) => sum + cpuOf(d.pid), 0),
      ...(env.cluster ? { postgres: () => cpuOfTree(env.cluster!.pid) } : {}),
      receiver: () => cpuOf(env.receiver.pid),
    });
    // The other account alone first, for BASELINE_MS: its latency on this machine, this run, without a replay.
    const baselineUntil = wallNow() + BASELINE_MS;
    const t0 = baselineUntil;
    let flooding = true;
    const sent: { tx: string; at: number }[] = [];
    const liveLoop = (async () => {
      for (let i = 0; flooding; i++) {
        const { tx, block } = payingBlock(20_000_000 + WARM_UP + i, i, LIVE_ADDRESS);
        const at = wallNow();
        await postBlock(urls[i % urls.length], INGEST_TOKEN, block);
        sent.push({ tx, at });
        await Bun.sleep(Math.max(0, at + LIVE_EVERY_MS - wallNow()));
      }
    })();

    await Bun.sleep(Math.max(0, baselineUntil - wallNow()));
    // The flood: the same replay again and again, as a client retrying blindly would.
    const answers: Record<string, number> = {};
    let queued = 0;
    let maxWaiting = 0;
    for (let call = 0; call < env.calls; call++) {
      const at = wallNow();
      const r = await replayAll(urls[call % urls.length], replaying.key);
      answers[r.status] = (answers[r.status] ?? 0) + 1;
      queued += r.queued;
      maxWaiting = Math.max(maxWaiting, await waitingReplays(ctx.db));
      await Bun.sleep(Math.max(0, at + env.everyMs - wallNow()));
    }
    const floodMs = wallNow() - t0;

    let drained = await arrivedAt(env.base, "/replay");
    const deadline = Date.now() + 600_000;
    while (drained.count < queued) {
      if (Date.now() > deadline) throw new Error(`only ${drained.count} of ${queued} replayed deliveries arrived within 600 s`);
      await Bun.sleep(100);
      drained = await arrivedAt(env.base, "/replay");
    }
    flooding = false;
    await liveLoop;
    const latencies: number[] = [];
    const alone: number[] = [];
    const timeline: { ms: number; sinceStart: number }[] = [];
    for (const s of sent) {
      for (let tries = 0; ; tries++) {
        const r = await fetch(`${env.base}/tx/${s.tx}`);
        if (r.status === 200) {
          const { at } = (await r.json()) as { at: number };
          // The blocks ingested while replayed deliveries were outstanding, and those before the first call.
          if (s.at < t0) alone.push(at - s.at);
          else if (s.at <= drained.last) {
            latencies.push(at - s.at);
            timeline.push({ ms: at - s.at, sinceStart: s.at - t0 });
          }
          break;
        }
        if (tries > 300) throw new Error(`the webhook of ${s.tx} did not arrive`);
        await Bun.sleep(10);
      }
    }
    const cpu = window();
    latencies.sort((a, b) => a - b);
    alone.sort((a, b) => a - b);
    return {
      scenario: env.scenario,
      answers,
      queued,
      maxWaiting,
      floodMs,
      drainMs: drained.last - t0,
      databaseBytes: await databaseBytes(ctx.db, env.url),
      live: latencies.length,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      alone: { blocks: alone.length, p50: percentile(alone, 50), p99: percentile(alone, 99) },
      slowest: timeline.sort((x, y) => y.ms - x.ms).slice(0, 3),
      cpu,
      deliveries: queued + sent.length,
    };
  } finally {
    await stopAll(daemons);
    await ctx.db.destroy();
  }
}
