// Delivery benchmark (not a test): `bun run bench:deliver`.
//
// 1. Throughput: 20,000 queued deliveries, sent by the daemon (a `serve` subprocess) to a local
//    Bun receiver (another subprocess), against a raw fetch loop posting the same bodies with the
//    same concurrency to the same receiver. Both rates are measured at the receiver, first to last
//    arrival. Target: daemon / raw >= 0.5.
// 2. Latency: POST /ingest/blocks of one block paying a watched address, to the receipt of its
//    webhook, with the daemon idle (the wake-up path). Target: p99 < 100 ms.
import type { Subprocess } from "bun";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAccount } from "../src/accounts/accounts.ts";
import { setPlan } from "../src/accounts/plans.ts";
import { loadConfig } from "../src/config/load.ts";
import { openContext } from "../src/daemon.ts";
import { enqueueDelivery } from "../src/delivery/enqueue.ts";
import { addWatch } from "../src/watch/watches.ts";

const TOTAL = 20_000;
const CONCURRENCY = 32;
const LATENCY_SAMPLES = 200;
const INGEST_TOKEN = "bench-token";
const WATCHED = "0x52908400098527886e0f7030069857d2e4169ee7";

/** Wall-clock milliseconds with sub-ms precision, comparable across processes on one machine. */
const wallNow = () => performance.timeOrigin + performance.now();

if (process.argv.includes("--receiver")) runReceiver();
else await main();

/** The receiver subprocess: answers 200 at once, remembers when each delivery and tx hash arrived. */
function runReceiver(): void {
  let count = 0;
  let first = 0;
  let last = 0;
  const byTx = new Map<string, number>();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      if (req.method === "POST") {
        const body = await req.text();
        const at = wallNow();
        if (count === 0) first = at;
        last = at;
        count++;
        const tx = /"tx_hash":"([^"]+)"/.exec(body)?.[1];
        if (tx) byTx.set(tx, at);
        return new Response("ok");
      }
      if (url.pathname === "/stats") return Response.json({ count, first, last });
      if (url.pathname === "/reset") {
        count = first = last = 0;
        byTx.clear();
        return Response.json({ ok: true });
      }
      const at = byTx.get(url.pathname.slice("/tx/".length));
      return at === undefined ? new Response(null, { status: 404 }) : Response.json({ at });
    },
  });
  process.stdout.write(`${JSON.stringify({ port: server.port })}\n`);
}

async function firstLine(proc: Subprocess<"ignore", "pipe", "inherit">, match: (line: string) => boolean): Promise<string> {
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`subprocess exited before it was ready: ${buf}`);
    buf += decoder.decode(value);
    const line = buf.split("\n").find(match);
    if (line) {
      // Keep draining so the child never blocks on a full pipe.
      (async () => {
        while (!(await reader.read().catch(() => ({ done: true }))).done) {}
      })();
      return line;
    }
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function eventBody(i: number): string {
  return JSON.stringify({
    id: `evt_${i.toString(16).padStart(24, "0")}`,
    type: "payment",
    direction: "in",
    watch_id: "aw_000000000000000000000001",
    network: "eth",
    address: WATCHED,
    tx_hash: `0x${i.toString(16).padStart(64, "0")}`,
    block_height: 19_000_000 + i,
    asset: null,
    amount: "1.5",
    amount_raw: "1500000000000000000",
    created_at: new Date().toISOString().replace("Z", "+00:00"),
  });
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "chainwatch-bench-deliver-"));
  const children: Subprocess[] = [];
  try {
    const receiver = Bun.spawn([process.execPath, import.meta.path, "--receiver"], { stdin: "ignore", stdout: "pipe", stderr: "inherit" });
    children.push(receiver);
    const { port } = JSON.parse(await firstLine(receiver, (l) => l.startsWith("{")));
    const base = `http://127.0.0.1:${port}`;
    const hookUrl = `${base}/hook`;

    const configPath = join(dir, "chainwatch.toml");
    writeFileSync(
      configPath,
      [
        "[server]",
        'host = "127.0.0.1"',
        "port = 0",
        "[database]",
        `url = "sqlite://${dir}/cw.db"`,
        "[secrets]",
        `master_key_file = "${dir}/master.key"`,
        "[ingest]",
        `token = "${INGEST_TOKEN}"`,
        "[delivery]",
        "allow_private_targets = true",
        `concurrency = ${CONCURRENCY}`,
        "",
      ].join("\n"),
    );
    const loaded = loadConfig(configPath);
    if (!loaded.ok) throw new Error(loaded.error);
    const ctx = await openContext(loaded.config, { env: {} });
    const plan = await setPlan(ctx.db, ctx.clock, { name: "bench", slots: 1 });
    if (!plan.ok) throw new Error(plan.error);
    // Billing stays on (the default): every success also charges credits and counts usage.
    const made = await createAccount(ctx, { name: "bench", plan: "bench", credits: 1_000_000_000 });
    if (!made.ok) throw new Error(made.error);
    const accountId = made.account.id;
    await ctx.db.updateTable("accounts").set({ webhook_url: hookUrl, webhook_enabled: 1 }).where("id", "=", accountId).execute();
    await addWatch(ctx.db, { accountId, network: "eth", address: WATCHED, now: Date.now() });

    // BENCH_PROFILE_DIR=<dir> writes a CPU profile (markdown) of the daemon there when it exits.
    const profile = process.env.BENCH_PROFILE_DIR ? ["--cpu-prof-md", `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : [];
    const daemon = Bun.spawn([process.execPath, ...profile, join(import.meta.dir, "../cli/index.ts"), "serve", "--config", configPath], {
      stdin: "ignore",
      stdout: "pipe",
      stderr: "inherit",
    });
    children.push(daemon);
    const daemonUrl = JSON.parse(await firstLine(daemon, (l) => l.includes('"msg":"listening"'))).url.replace(/\/$/, "");

    const bodies = Array.from({ length: TOTAL }, (_, i) => eventBody(i));

    // --- Throughput: the daemon ---
    await fetch(`${base}/reset`);
    await ctx.db.transaction().execute(async (trx) => {
      const now = Date.now();
      for (const body of bodies) await enqueueDelivery(trx, { accountId, kind: "event", eventType: "payment", network: "eth", body, nowMs: now });
    });
    const queuedAt = wallNow();
    type Stats = { count: number; first: number; last: number };
    let stats: Stats = { count: 0, first: 0, last: 0 };
    while (stats.count < TOTAL) {
      await Bun.sleep(100);
      stats = (await (await fetch(`${base}/stats`)).json()) as Stats;
    }
    const daemonRate = ((TOTAL - 1) / (stats.last - stats.first)) * 1000;
    const daemonWall = stats.last - queuedAt;

    // --- Throughput: a raw fetch loop, same bodies, same concurrency, same receiver ---
    await fetch(`${base}/reset`);
    let next = 0;
    const worker = async () => {
      while (next < TOTAL) {
        const body = bodies[next++];
        const res = await fetch(hookUrl, { method: "POST", headers: { "Content-Type": "application/json" }, body });
        await res.text();
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    stats = (await (await fetch(`${base}/stats`)).json()) as Stats;
    const rawRate = ((TOTAL - 1) / (stats.last - stats.first)) * 1000;

    // --- Latency: ingest → receipt, daemon idle, through the wake-up path ---
    await Bun.sleep(1500);
    const latencies: number[] = [];
    for (let i = 0; i < LATENCY_SAMPLES; i++) {
      const height = 20_000_000 + i;
      const tx = `0x${(0xabc00000 + i).toString(16).padStart(64, "0")}`;
      const block = {
        network: "eth",
        height,
        hash: `0x${height.toString(16).padStart(64, "0")}`,
        parent_hash: `0x${(height - 1).toString(16).padStart(64, "0")}`,
        timestamp: Math.floor(Date.now() / 1000),
        transactions: [{ hash: tx, from: "0x8617e340b3d01fa5f11f306f4090fd50e238070d", to: WATCHED, value: "1000000000000000000" }],
      };
      const t0 = wallNow();
      const res = await fetch(`${daemonUrl}/ingest/blocks`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${INGEST_TOKEN}` },
        body: JSON.stringify(block),
      });
      if (res.status !== 202) throw new Error(`ingest answered ${res.status}: ${await res.text()}`);
      for (;;) {
        const r = await fetch(`${base}/tx/${tx}`);
        if (r.status === 200) {
          latencies.push(((await r.json()) as { at: number }).at - t0);
          break;
        }
        await Bun.sleep(1);
      }
      await Bun.sleep(10);
    }
    latencies.sort((a, b) => a - b);
    await ctx.db.destroy();

    const ratio = daemonRate / rawRate;
    console.log(`deliveries:           ${TOTAL} (concurrency ${CONCURRENCY}, receiver answers 200 at once)`);
    console.log(`daemon throughput:    ${daemonRate.toFixed(0)} deliveries/s (first→last arrival; ${(daemonWall / 1000).toFixed(2)} s from commit incl. the next tick)`);
    console.log(`raw fetch throughput: ${rawRate.toFixed(0)} requests/s`);
    console.log(`ratio daemon/raw:     ${ratio.toFixed(2)} (target >= 0.5) ${ratio >= 0.5 ? "OK" : "MISSED"}`);
    const p50 = percentile(latencies, 50);
    const p99 = percentile(latencies, 99);
    console.log(`ingest→receipt:       p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms over ${LATENCY_SAMPLES} blocks (target p99 < 100 ms) ${p99 < 100 ? "OK" : "MISSED"}`);
  } finally {
    for (const c of children) {
      c.kill();
      await c.exited;
    }
    rmSync(dir, { recursive: true, force: true });
  }
}
