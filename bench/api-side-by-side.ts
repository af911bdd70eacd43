// Signed API, several source trees side by side (not a test, not a `bench:*` script):
// `bun bench/api-side-by-side.ts <tree> [<tree> …]`, each tree a checkout of chainwatch sharing this
// one's node_modules (e.g. `git archive <commit> | tar -x -C /tmp/t && ln -s $PWD/node_modules /tmp/t/`).
//
// `bench:api` compares one tree with the stack's floor, each server in its own process, one after
// the other; on a loaded machine two runs of it minutes apart differ by more than a small cut saves.
// This starts every tree's daemon (startDaemon: the real Bun.serve, the background workers) and a
// bare Elysia + HMAC server in this one process, each over its own SQLite file and 100 keys, then
// drives them in turn (one load generator subprocess, 32 connections, pre-signed GET /v1/account)
// for BENCH_ROUNDS rounds (12) of BENCH_DURATION_MS (1,500) after 1 s of warm-up each, and prints
// each server's median, lower quartile and minimum CPU µs per request of this process over the
// rounds, the idle CPU of the daemons' background work (measured first, for 3 s) taken out. The
// rounds interleave, so a spell of load on the machine falls on every server alike.
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Elysia } from "elysia";
import { cpuOf } from "./support/cpu.ts";
import { writeDaemonConfig } from "./support/daemons.ts";
import { measureLoadCpu } from "./support/load-cpu.ts";
import { runLoadInSubprocess } from "./support/load.ts";

const PATH = process.env.BENCH_PATH ?? "/v1/account";
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 12);
const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 1_500);
const trees = process.argv.slice(2);
if (trees.length === 0) throw new Error("usage: bun bench/api-side-by-side.ts <tree> [<tree> …]");

type Server = { name: string; url: string; headers: Record<string, string>[]; stop(): Promise<void> };
const servers: Server[] = [];
const dirs: string[] = [];
const EMPTY_SHA256 = createHash("sha256").update("").digest("hex");

try {
  for (const tree of trees) servers.push(await startTree(tree));
  servers.push(await startBareHmac(servers[0]));
  await measure();
} finally {
  for (const s of servers) await s.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}

/** A tree's daemon over a fresh SQLite file with 100 accounts and keys, and headers signed for each. */
async function startTree(tree: string): Promise<Server> {
  const { createAccount } = await import(join(tree, "src/accounts/accounts.ts"));
  const { createApiKey } = await import(join(tree, "src/accounts/api-keys.ts"));
  const { setPlan } = await import(join(tree, "src/accounts/plans.ts"));
  const { loadConfig } = await import(join(tree, "src/config/load.ts"));
  const { openContext, startDaemon } = await import(join(tree, "src/daemon.ts"));
  const dir = mkdtempSync(join(tmpdir(), "chainwatch-bench-side-"));
  dirs.push(dir);
  const loaded = loadConfig(writeDaemonConfig(dir, `sqlite://${dir}/chainwatch.db`, ["[rate_limit]", "per_key_rps = 1000000", "[log]", 'level = "warn"']));
  if (!loaded.ok) throw new Error(loaded.error);
  const ctx = await openContext(loaded.config, { env: {}, create: true });
  await setPlan(ctx.db, ctx.clock, { name: "bench", slots: 10 });
  const keys: { api_key: string; secret: string }[] = [];
  for (let i = 0; i < 100; i++) {
    const account = await createAccount(ctx, { name: `bench-${i}`, plan: "bench", credits: 1000 });
    if (!account.ok) throw new Error(account.error);
    const key = await createApiKey(ctx, { accountId: account.account.id, allowIps: [] });
    if (!key.ok) throw new Error(key.error);
    keys.push(key.key);
  }
  const daemon = await startDaemon(ctx, {});
  const ts = String(Math.floor(Date.now() / 1000));
  const headers = keys.map((k) => ({
    "X-Api-Key": k.api_key,
    "X-Timestamp": ts,
    "X-Signature": createHmac("sha256", k.secret).update(`${ts}\nGET\n${PATH}\n${EMPTY_SHA256}`).digest("hex"),
  }));
  return { name: tree, url: String(daemon.url).replace(/\/$/, ""), headers, stop: () => daemon.stop() };
}

/** bench/support/bare-elysia.ts's `hmac` server, in this process, with the first tree's keys (it answers that tree's body). */
async function startBareHmac(first: Server): Promise<Server> {
  const sample = await fetch(`${first.url}${PATH}`, { headers: first.headers[0] });
  if (sample.status !== 200) throw new Error(`GET ${PATH} answered ${sample.status}`);
  const payload = await sample.json();
  const secrets = new Map<string, string>();
  // Keys of its own (the daemon's secrets are sealed in its database), as many, signed the same way.
  const keys = first.headers.map((_, i) => ({ apiKey: `bare-${i}`, secret: createHash("sha256").update(`bare-${i}`).digest("hex") }));
  for (const k of keys) secrets.set(k.apiKey, k.secret);
  const ts = String(Math.floor(Date.now() / 1000));
  const headers = keys.map((k) => ({
    "X-Api-Key": k.apiKey,
    "X-Timestamp": ts,
    "X-Signature": createHmac("sha256", k.secret).update(`${ts}\nGET\n${PATH}\n${EMPTY_SHA256}`).digest("hex"),
  }));
  const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;
  const app = new Elysia({ strictPath: true, systemRouter: false })
    .onError(({ set }) => {
      set.status = 401;
      return { error: "Invalid signature." };
    })
    .derive(async ({ request, path }) => {
      const apiKey = request.headers.get("x-api-key");
      const timestamp = request.headers.get("x-timestamp");
      const signature = request.headers.get("x-signature");
      const secret = apiKey === null ? undefined : secrets.get(apiKey);
      if (secret === undefined || timestamp === null || signature === null) throw new Error("unsigned");
      if (Math.abs(Math.floor(Date.now() / 1000) - Number(timestamp)) > 300) throw new Error("stale");
      const expected = new Bun.CryptoHasher("sha256", secret).update(`${timestamp}\n${request.method}\n${path}\n${EMPTY_SHA256}`).digest();
      if (!(HEX_SHA256.test(signature) && timingSafeEqual(Buffer.from(signature, "hex"), expected))) throw new Error("bad signature");
      return { apiKey };
    })
    .get(PATH, () => payload)
    .listen({ hostname: "127.0.0.1", port: 0, development: false, reusePort: false });
  return { name: "bare Elysia + HMAC", url: `http://127.0.0.1:${app.server!.port}`, headers, stop: async () => void (await app.stop(true)) };
}

async function measure(): Promise<void> {
  const me = process.pid;
  const idleFrom = cpuOf(me);
  await Bun.sleep(3000);
  const idlePerMs = (cpuOf(me) - idleFrom) / 3000;
  console.log(`idle (the daemons' background work): ${(idlePerMs * 100).toFixed(1)} % of a core`);
  const round = async (s: Server): Promise<number> => {
    const cpu = measureLoadCpu({ server: () => cpuOf(me) }, { warmupMs: 1000, durationMs: DURATION_MS });
    const targets = s.headers.map((headers) => ({ url: `${s.url}${PATH}`, headers }));
    const result = await runLoadInSubprocess({ connections: 32, durationMs: DURATION_MS, warmupMs: 1000, targets }, cpu.track);
    const window = await cpu.window;
    if (result.errors > 0) throw new Error(`${s.name}: ${result.errors} errors`);
    return ((window.byRole.server - idlePerMs * window.wallMs) * 1000) / result.requests;
  };
  for (const s of servers) await round(s);
  const figures = servers.map(() => [] as number[]);
  for (let r = 0; r < ROUNDS; r++) for (const [i, s] of servers.entries()) figures[i].push(await round(s));
  const at = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))];
  const floor = at(figures.at(-1)!, 0.5);
  console.log(`CPU µs per request of this process, ${ROUNDS} rounds of ${DURATION_MS} ms, GET ${PATH}; load average ${(await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ")}`);
  for (const [i, s] of servers.entries()) {
    const xs = figures[i];
    console.log(`${s.name}: median ${at(xs, 0.5).toFixed(1)}, lower quartile ${at(xs, 0.25).toFixed(1)}, min ${Math.min(...xs).toFixed(1)}; ${(at(xs, 0.5) / floor).toFixed(2)}× the bare Elysia + HMAC median`);
  }
}
