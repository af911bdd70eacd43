// Cabinet page benchmark (not a test): `bun run bench:cabinet`.
//
// The overview page (session look-up, account snapshot, 30-day usage series, the SVG chart, the
// whole HTML) from a `serve` subprocess, against a bare Bun.serve subprocess answering a body of
// the same size. A person loads one page at a time, so this measures time to first byte of
// sequential requests on one keep-alive connection, not throughput; it also prints the page weight.
import type { Subprocess } from "bun";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAccount } from "../src/accounts/accounts.ts";
import { setPlan } from "../src/accounts/plans.ts";
import { recordUsage } from "../src/billing/usage.ts";
import { createSignInLink, redeemSignInLink } from "../src/cabinet/sessions.ts";
import { loadConfig } from "../src/config/load.ts";
import { openContext } from "../src/daemon.ts";
import { freePort, waitForHealth } from "./support/daemons.ts";


const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 1000);
const WARMUP = 100;
const ROOT = join(import.meta.dir, "..");

const processes: Subprocess[] = [];
const dir = mkdtempSync(join(tmpdir(), "chainwatch-bench-cabinet-"));

try {
  await main();
} finally {
  for (const p of processes) if (p.exitCode === null && p.signalCode === null) p.kill("SIGTERM");
  await Promise.all(processes.map((p) => Promise.race([p.exited, Bun.sleep(3000).then(() => p.kill("SIGKILL"))])));
  rmSync(dir, { recursive: true, force: true });
}

async function main(): Promise<void> {
  const port = freePort();
  const configPath = join(dir, "chainwatch.toml");
  writeFileSync(configPath, ["[server]", `port = ${port}`, "[database]", `url = "sqlite://${dir}/chainwatch.db"`, "[secrets]", `master_key_file = "${dir}/master.key"`, ""].join("\n"));
  const cookie = await seedSession(configPath);
  const daemon = spawn([process.execPath, join(ROOT, "cli/index.ts"), "serve", "--config", configPath]);
  const url = `http://127.0.0.1:${port}/cabinet/`;
  await waitForHealth(`http://127.0.0.1:${port}/healthz`, daemon);
  const sample = await fetch(url, { headers: { cookie } });
  const page = await sample.text();
  if (sample.status !== 200 || !page.includes("<h1>Overview</h1>")) throw new Error(`overview answered ${sample.status}`);
  const bytes = Buffer.byteLength(page);

  const barePort = freePort();
  spawn([process.execPath, join(ROOT, "bench/support/bare-server.ts"), String(barePort), String(bytes)]);
  const bareUrl = `http://127.0.0.1:${barePort}/`;
  await waitForHealth(bareUrl);

  const bare = await ttfb(bareUrl, {});
  const overview = await ttfb(url, { cookie });
  const row = (name: string, r: Timing) => `${name.padEnd(20)} ${r.p50.toFixed(2).padStart(8)} ${r.p95.toFixed(2).padStart(8)} ${r.p99.toFixed(2).padStart(8)}`;
  console.log("");
  console.log(`${"target".padEnd(20)} ${"p50 ms".padStart(8)} ${"p95 ms".padStart(8)} ${"p99 ms".padStart(8)}`);
  console.log(row("bare Bun.serve", bare));
  console.log(row("GET /cabinet/", overview));
  console.log("");
  console.log(`overview: ${bytes} bytes of HTML, one request (no other assets); TTFB p50 ${overview.p50.toFixed(2)} ms vs bare ${bare.p50.toFixed(2)} ms over ${REQUESTS} sequential requests`);
  console.log(JSON.stringify({ bench: "cabinet", requests: REQUESTS, page_bytes: bytes, bare, overview }));
}

/** An account with 30 days of usage and a redeemed sign-in link; returns the session cookie. */
async function seedSession(configPath: string): Promise<string> {
  const loaded = loadConfig(configPath);
  if (!loaded.ok) throw new Error(loaded.error);
  const ctx = await openContext(loaded.config, { env: {} });
  try {
    await setPlan(ctx.db, ctx.clock, { name: "bench", slots: 10 });
    const a = await createAccount(ctx, { name: "bench", plan: "bench", credits: 100_000 });
    if (!a.ok) throw new Error(a.error);
    const now = ctx.clock.now();
    for (let d = 0; d < 30; d++) await recordUsage(ctx.db, a.account.id, now - d * 86_400_000, { credits: 50 * ((d * 7) % 13), deliveries: d, events: d });
    const { token } = await createSignInLink(ctx, a.account.id, 60_000);
    const session = await redeemSignInLink(ctx, token);
    if (!session.ok) throw new Error("sign-in failed");
    return `chainwatch_session=${session.sessionToken}`;
  } finally {
    await ctx.db.destroy();
  }
}

type Timing = { p50: number; p95: number; p99: number };

/** Time until the response headers arrive (Bun's fetch resolves then), one request at a time. */
async function ttfb(url: string, headers: Record<string, string>): Promise<Timing> {
  const samples: number[] = [];
  for (let i = 0; i < WARMUP + REQUESTS; i++) {
    const t0 = performance.now();
    const res = await fetch(url, { headers });
    const t = performance.now() - t0;
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
    if (i >= WARMUP) samples.push(t);
  }
  samples.sort((x, y) => x - y);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))];
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99) };
}

function spawn(cmd: string[]): Subprocess {
  const proc = Bun.spawn(cmd, { cwd: dir, stdin: "ignore", stdout: "ignore", stderr: "inherit" });
  processes.push(proc);
  return proc;
}
