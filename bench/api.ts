// Signed API benchmark (not a test): `bun run bench:api`.
//
// GET /v1/account on the daemon (a `serve` subprocess: signature check, key cache, rate limiter,
// two SQLite reads) against a bare Bun.serve subprocess answering a JSON body of the same size.
// One load generator (a third process: N keep-alive fetch loops, pre-signed headers spread over
// 100 keys) drives both with the same connections and duration. Target: signed / bare >= 0.5.
import type { Subprocess } from "bun";
import { createHash, createHmac } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAccount } from "../src/accounts/accounts.ts";
import { createApiKey } from "../src/accounts/api-keys.ts";
import { setPlan } from "../src/accounts/plans.ts";
import { loadConfig } from "../src/config/load.ts";
import { openContext } from "../src/daemon.ts";
import { type LoadResult, type LoadTarget, runLoadInSubprocess } from "./support/load.ts";

const KEYS = 100;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 10_000);
const WARMUP_MS = 2_000;
/** The signed route to drive; GET /v1/account by default (BENCH_PATH=/v1/endpoints isolates auth from SQLite). */
const PATH = process.env.BENCH_PATH ?? "/v1/account";
const ROOT = join(import.meta.dir, "..");

const processes: Subprocess[] = [];
const dir = mkdtempSync(join(tmpdir(), "chainwatch-bench-api-"));

try {
  await main();
} finally {
  for (const p of processes) if (p.exitCode === null && p.signalCode === null) p.kill("SIGTERM");
  await Promise.all(processes.map((p) => Promise.race([p.exited, Bun.sleep(3000).then(() => p.kill("SIGKILL"))])));
  rmSync(dir, { recursive: true, force: true });
}

async function main(): Promise<void> {
  const daemonPort = freePort();
  const configPath = join(dir, "chainwatch.toml");
  writeFileSync(
    configPath,
    [
      "[server]",
      `port = ${daemonPort}`,
      "[database]",
      `url = "sqlite://${dir}/chainwatch.db"`,
      "[secrets]",
      `master_key_file = "${dir}/master.key"`,
      "[rate_limit]",
      "per_key_rps = 1000000",
      "",
    ].join("\n"),
  );

  const keys = await createKeys(configPath);
  log(`created ${keys.length} accounts and keys`);

  const daemon = spawn([process.execPath, join(ROOT, "cli/index.ts"), "serve", "--config", configPath], dir);
  const daemonUrl = `http://127.0.0.1:${daemonPort}`;
  await waitForHealth(`${daemonUrl}/healthz`, daemon);

  const signedTargets: LoadTarget[] = keys.map((k) => ({ url: `${daemonUrl}${PATH}`, headers: signedHeaders(k, PATH) }));
  const sample = await fetch(signedTargets[0].url, { headers: signedTargets[0].headers });
  const sampleBody = await sample.text();
  if (sample.status !== 200) throw new Error(`GET ${PATH} answered ${sample.status}: ${sampleBody}`);
  const bodyBytes = Buffer.byteLength(sampleBody);

  const barePort = freePort();
  spawn([process.execPath, join(ROOT, "bench/support/bare-server.ts"), String(barePort), String(bodyBytes)], dir);
  const bareUrl = `http://127.0.0.1:${barePort}`;
  await waitForHealth(bareUrl, undefined);
  // The same pre-signed headers go to the bare server, so both see requests of the same size.
  const bareTargets = signedTargets.map((t) => ({ ...t, url: `${bareUrl}${PATH}` }));

  log(`load: ${CONNECTIONS} connections, ${WARMUP_MS} ms warm-up, ${DURATION_MS} ms measured, ${bodyBytes}-byte JSON body`);
  const spec = { connections: CONNECTIONS, durationMs: DURATION_MS, warmupMs: WARMUP_MS };
  const bare = await runLoadInSubprocess({ ...spec, targets: bareTargets }, track);
  const signed = await runLoadInSubprocess({ ...spec, targets: signedTargets }, track);

  report(bare, signed, bodyBytes);
}

/** Plans, accounts and keys created in-process (the CLI would take a process per key). */
async function createKeys(configPath: string): Promise<{ api_key: string; secret: string }[]> {
  const loaded = loadConfig(configPath);
  if (!loaded.ok) throw new Error(loaded.error);
  const ctx = await openContext(loaded.config, { env: {} });
  try {
    const plan = await setPlan(ctx.db, ctx.clock, { name: "bench", slots: 10 });
    if (!plan.ok) throw new Error(plan.error);
    const keys = [];
    for (let i = 0; i < KEYS; i++) {
      const account = await createAccount(ctx, { name: `bench-${i}`, plan: "bench", credits: 1000 });
      if (!account.ok) throw new Error(account.error);
      const key = await createApiKey(ctx, { accountId: account.account.id, allowIps: [] });
      if (!key.ok) throw new Error(key.error);
      keys.push(key.key);
    }
    return keys;
  } finally {
    await ctx.db.destroy();
  }
}

/** Headers signed once, up front: valid for ±300 s, far longer than the run. */
function signedHeaders(key: { api_key: string; secret: string }, path: string): Record<string, string> {
  const ts = String(Math.floor(Date.now() / 1000));
  const bodyHash = createHash("sha256").update("").digest("hex");
  const signature = createHmac("sha256", key.secret).update(`${ts}\nGET\n${path}\n${bodyHash}`).digest("hex");
  return { "X-Api-Key": key.api_key, "X-Timestamp": ts, "X-Signature": signature };
}

function report(bare: LoadResult, signed: LoadResult, bodyBytes: number): void {
  const row = (name: string, r: LoadResult) =>
    `${name.padEnd(22)} ${String(r.rps).padStart(8)} ${r.p50.toFixed(2).padStart(8)} ${r.p99.toFixed(2).padStart(8)} ${String(r.requests).padStart(9)} ${String(r.errors).padStart(7)}`;
  const ratio = signed.rps / bare.rps;
  console.log("");
  console.log(`${"target".padEnd(22)} ${"req/s".padStart(8)} ${"p50 ms".padStart(8)} ${"p99 ms".padStart(8)} ${"requests".padStart(9)} ${"errors".padStart(7)}`);
  console.log(row("bare Bun.serve", bare));
  console.log(row(`GET ${PATH}`, signed));
  console.log("");
  console.log(`signed / bare = ${ratio.toFixed(2)} (target >= 0.5); ${CONNECTIONS} connections, ${DURATION_MS} ms, ${KEYS} keys, ${bodyBytes}-byte body`);
  console.log(JSON.stringify({ bench: "api", path: PATH, connections: CONNECTIONS, duration_ms: DURATION_MS, keys: KEYS, body_bytes: bodyBytes, bare, signed, ratio: Number(ratio.toFixed(3)) }));
  if (bare.errors > 0 || signed.errors > 0) process.exitCode = 1;
}

function spawn(cmd: string[], cwd: string): Subprocess {
  const proc = Bun.spawn(cmd, { cwd, stdin: "ignore", stdout: "ignore", stderr: "inherit" });
  processes.push(proc);
  return proc;
}

function track(p: Subprocess): void {
  processes.push(p);
}

/** A free TCP port: bind port 0, read it, let it go. */
function freePort(): number {
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = probe.port as number;
  probe.stop(true);
  return port;
}

/** Polls until `url` answers (bounded to 15 s), failing early if `proc` exits. */
async function waitForHealth(url: string, proc: Subprocess | undefined): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (proc && proc.exitCode !== null) throw new Error(`${url}: process exited with ${proc.exitCode}`);
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await Bun.sleep(50);
  }
  throw new Error(`${url} did not come up within 15 s`);
}

function log(line: string): void {
  console.log(`bench:api ${line}`);
}
