// The recovery run of `bun run bench:deliver` (BENCH_RECOVERY=1): what a receiver back from a long
// outage sees, and what the other accounts see meanwhile.
//
// 50,000 failed deliveries of one account (queued over an hour, every attempt used up) are put
// back with POST /v1/address-watch/webhook/recover (10,000 a call, called until `more` is false)
// and drained to the local receiver; the account's webhook has no rate limit unless
// BENCH_RECOVERY_MAX_RPS says otherwise. Meanwhile a second account's watched address is paid by
// one ingested block every ~100 ms, and each of its webhooks is timed from the ingest POST to its
// arrival. Before the measured run, a third account recovers 2,000 deliveries, so the daemons run
// it warm. Reported: the drain time (first recover call to last backlog arrival), the second
// account's latency during the drain (target p99 < 100 ms), and CPU µs per delivery.
import type { Subprocess } from "bun";
import { payingBlock, postBlock } from "./support/paying-block.ts";
import { createHash, createHmac } from "node:crypto";
import { sql } from "kysely";
import { createApiKey } from "../src/accounts/api-keys.ts";
import { createAccount } from "../src/accounts/accounts.ts";
import { setPlan } from "../src/accounts/plans.ts";
import { loadConfig } from "../src/config/load.ts";
import { openContext } from "../src/daemon.ts";
import type { Db } from "../src/db/database.ts";
import { type EnqueueInput, enqueueDeliveries } from "../src/delivery/outbox.ts";
import { addWatch } from "../src/watch/watches.ts";
import { cpuOf, cpuOfTree, type CpuWindow, startCpuWindow } from "./support/cpu.ts";
import { spawnDaemons, stopAll, writeDaemonConfig } from "./support/daemons.ts";
import type { BenchCluster } from "./support/postgres.ts";
import type { Scenario } from "./support/scenarios.ts";
import { pointWebhook } from "./support/endpoint.ts";

export const RECOVERED = 50_000;
/** Deliveries a third account recovers first, so the measured run finds the daemons warm. */
const WARM_UP = 2_000;
const LIVE_EVERY_MS = 100;
const INGEST_TOKEN = "bench-token";
const LIVE_ADDRESS = "0x52908400098527886e0f7030069857d2e4169ee7";

/** Wall-clock milliseconds with sub-ms precision, comparable across processes on one machine. */
const wallNow = () => performance.timeOrigin + performance.now();

export type RecoveryEnv = {
  scenario: Scenario;
  dir: string;
  url: string;
  /** The receiver's base URL: it counts arrivals per path (`/stats`) and times each tx hash (`/tx/<hash>`). */
  base: string;
  receiver: Subprocess;
  cluster: BenchCluster | undefined;
  concurrency: number;
  maxRps: number;
  track: (p: Subprocess) => void;
};

export type RecoveryOutcome = {
  scenario: Scenario;
  drainMs: number;
  requeueMs: number;
  calls: number;
  duplicates: number;
  live: number;
  p50: number;
  p99: number;
  /** The other account's slowest webhooks: how long each took, and when into the run its block came. */
  slowest: { ms: number; sinceStart: number }[];
  cpu: CpuWindow;
  /** Deliveries in the CPU window: the backlog and the live account's. */
  deliveries: number;
};

type PathStats = { count: number; unique: number; first: number; last: number };

function backlogBody(i: number): string {
  return JSON.stringify({
    id: `evt_${i.toString(16).padStart(24, "0")}`,
    type: "payment",
    direction: "in",
    network: "eth",
    address: LIVE_ADDRESS,
    tx_hash: `0x${i.toString(16).padStart(64, "0")}`,
    amount: "1.5",
    amount_raw: "1500000000000000000",
  });
}

function signed(key: { api_key: string; secret: string }, method: string, path: string, body: string): Record<string, string> {
  const ts = String(Math.floor(Date.now() / 1000));
  const canonical = `${ts}\n${method}\n${path}\n${createHash("sha256").update(body).digest("hex")}`;
  return { "Content-Type": "application/json", "X-Api-Key": key.api_key, "X-Timestamp": ts, "X-Signature": createHmac("sha256", key.secret).update(canonical).digest("hex") };
}

/**
 * Writes `count` deliveries of the account, queued over the hour after `queuedAt` and failed for
 * good, their bodies numbered from `first` (tx hashes the receiver tells apart).
 */
async function failedBacklog(db: Db, account: { id: string; endpointId: string }, count: number, queuedAt: number, first: number): Promise<void> {
  const inputs: EnqueueInput[] = Array.from({ length: count }, (_, i) => ({
    accountId: account.id,
    endpointId: account.endpointId,
    kind: "event",
    eventType: "payment",
    network: "eth",
    body: backlogBody(first + i),
    nowMs: queuedAt + Math.floor((i * 3_600_000) / count),
  }));
  await db.transaction().execute(async (trx) => {
    const ids = await enqueueDeliveries(trx, inputs);
    for (let i = 0; i < ids.length; i += 500)
      await trx
        .updateTable("deliveries")
        .set({ status: "failed", attempts: 11, last_status_code: 503, completed_at: queuedAt + 3_600_000 })
        .where("id", "in", ids.slice(i, i + 500))
        .execute();
  });
}

/** One POST /v1/address-watch/webhook/recover of everything failed since `queuedAt`; answers `more`. */
async function recover(daemonUrl: string, key: { api_key: string; secret: string }, queuedAt: number): Promise<boolean> {
  const body = JSON.stringify({ since: Math.floor(queuedAt / 1000) - 1 });
  const res = await fetch(`${daemonUrl}/v1/address-watch/webhook/recover`, {
    method: "POST",
    headers: signed(key, "POST", "/v1/address-watch/webhook/recover", body),
    body,
  });
  if (res.status !== 200) throw new Error(`recover answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { more: boolean }).more;
}

/** The receiver's count of one path. */
async function arrivedAt(base: string, path: string): Promise<PathStats> {
  const stats = (await (await fetch(`${base}/stats`)).json()) as { paths: Record<string, PathStats> };
  return stats.paths[path] ?? { count: 0, unique: 0, first: 0, last: 0 };
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export async function runRecovery(env: RecoveryEnv): Promise<RecoveryOutcome> {
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
    const account = async (name: string, path: string, set: Parameters<typeof pointWebhook>[3] = {}) => {
      const made = await createAccount(ctx, { name, plan: "bench", credits: 1_000_000_000_000 });
      if (!made.ok) throw new Error(made.error);
      const endpointId = await pointWebhook(ctx.db, made.account.id, `${env.base}${path}`, set);
      const key = await createApiKey(ctx, { accountId: made.account.id, allowIps: [] });
      if (!key.ok) throw new Error(key.error);
      return { id: made.account.id, endpointId, key: key.key };
    };
    const backlog = await account("backlog", "/backlog", env.maxRps > 0 ? { maxRps: env.maxRps } : {});
    // The live account gets its payments only (no block events): one webhook per block.
    const live = await account("live", "/live", { events: { block: false } });
    await addWatch(ctx.db, { accountId: live.id, network: "eth", address: LIVE_ADDRESS, now: Date.now() });
    const warm = await account("warm-up", "/warm-up");

    // The outage: deliveries queued over an hour, every one failed for good.
    const queuedAt = Date.now() - 7_200_000;
    await failedBacklog(ctx.db, backlog, RECOVERED, queuedAt, 0);
    await failedBacklog(ctx.db, warm, WARM_UP, queuedAt, RECOVERED);
    // As the throughput run does: the planner's statistics of the steady state (docs/benchmarks.md).
    if (env.cluster) await sql`analyze deliveries`.execute(ctx.db);

    // BENCH_PROFILE_DIR=<dir> writes a CPU profile (markdown) of each daemon there when it exits.
    const profile = process.env.BENCH_PROFILE_DIR ? ["--cpu-prof-md", `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : [];
    const started = await spawnDaemons(configPath, env.scenario.daemons, (p) => (daemons.push(p), env.track(p)), profile);
    const urls = started.map((d) => d.url);
    // A fresh process runs its first recovery and deliveries through cold code: warm up first.
    await recover(urls[0], warm.key, queuedAt);
    const warmedBy = Date.now() + 60_000;
    while ((await arrivedAt(env.base, "/warm-up")).count < WARM_UP) {
      if (Date.now() > warmedBy) throw new Error("the warm-up deliveries did not arrive within 60 s");
      await Bun.sleep(100);
    }
    await fetch(`${env.base}/reset`);
    await Bun.sleep(1500);

    const window = startCpuWindow({
      daemons: () => daemons.reduce((sum, d) => sum + cpuOf(d.pid), 0),
      ...(env.cluster ? { postgres: () => cpuOfTree(env.cluster!.pid) } : {}),
      receiver: () => cpuOf(env.receiver.pid),
    });
    const t0 = wallNow();
    let draining = true;
    // The live account: a block paying its address every ~100 ms while the backlog drains.
    const sent: { tx: string; at: number }[] = [];
    const liveLoop = (async () => {
      for (let i = 0; draining; i++) {
        const { tx, block } = payingBlock(20_000_000 + i, i, LIVE_ADDRESS);
        const at = wallNow();
        await postBlock(urls[i % urls.length], INGEST_TOKEN, block);
        sent.push({ tx, at });
        await Bun.sleep(Math.max(0, at + LIVE_EVERY_MS - wallNow()));
      }
    })();

    // The receiver is back: recover everything, 10,000 a call.
    let calls = 0;
    for (let more = true; more; calls++) more = await recover(urls[calls % urls.length], backlog.key, queuedAt);
    const requeueMs = wallNow() - t0;

    let drained = await arrivedAt(env.base, "/backlog");
    const deadline = Date.now() + 600_000;
    while (drained.count < RECOVERED) {
      if (Date.now() > deadline) throw new Error(`only ${drained.count} of ${RECOVERED} recovered deliveries arrived within 600 s`);
      await Bun.sleep(100);
      drained = await arrivedAt(env.base, "/backlog");
    }
    draining = false;
    await liveLoop;
    // The last live webhooks' arrival, then the window closes.
    const latencies: number[] = [];
    const timeline: { ms: number; sinceStart: number }[] = [];
    for (const s of sent) {
      for (let tries = 0; ; tries++) {
        const r = await fetch(`${env.base}/tx/${s.tx}`);
        if (r.status === 200) {
          const { at } = (await r.json()) as { at: number };
          // Only the blocks ingested while the backlog drained count.
          if (s.at <= drained.last) {
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
    return {
      scenario: env.scenario,
      drainMs: drained.last - t0,
      requeueMs,
      calls,
      duplicates: drained.count - drained.unique,
      live: latencies.length,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      slowest: timeline.sort((x, y) => y.ms - x.ms).slice(0, 3),
      cpu,
      deliveries: RECOVERED + sent.length,
    };
  } finally {
    await stopAll(daemons);
    await ctx.db.destroy();
  }
}
