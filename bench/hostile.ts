// Hostile request bodies (not a test): `bun run bench:hostile`.
//
// Sends BENCH_CONCURRENCY (100) requests at once, each with a BENCH_BODY_BYTES (1 MiB) hostile
// JSON body, to every public route that takes a body, BENCH_ROUNDS (3) times over, and reports
// what the daemon's memory did: its RSS before (VmRSS of /proc/<pid>/status), its peak while the
// requests were answered (VmHWM, reset through /proc/<pid>/clear_refs just before; polled when the
// reset is refused) and the growth, beside the statuses it answered and the CPU each request cost
// it (µs, from /proc/<pid>/stat). Two bodies: `[[[…]]]` (nested half the body deep) and
// `[1,1,1,…]` (one wide array). Each case runs on a fresh `serve` subprocess over its own copy of
// one seeded SQLite database, so nothing one case left in the heap counts in another's figures.
// First, the floor: a bare Bun.serve that reads and hashes the same bodies (support/bare-body-reader.ts),
// what any server that checks a signature over 100 bodies arriving at once holds of them.
//
// The senders: a stranger (no X-Api-Key; on /v1 also a real key with a wrong signature, the one
// unauthenticated request whose body must be read), the key's owner with a correct signature
// (deep body), the ingest feed with a wrong and with the right token, the cabinet without a
// session and with one, /rpc without a key. The /v1 routes are those of the daemon's own
// OpenAPI document that take a body (POST, PUT, PATCH, DELETE), so a new one is never missed.
// BENCH_CONCURRENCY=4 BENCH_BODY_BYTES=4096 BENCH_ROUNDS=1 runs it tiny; BENCH_ONLY=<text>[|<text>…]
// runs the cases whose label holds one of them. A daemon whose RSS passes BENCH_RSS_CAP_MB (4000)
// is killed at once and its case reported as killed: the machine is shared, and the figure has
// made its point.
import type { Subprocess } from "bun";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAccount } from "../src/accounts/accounts.ts";
import { createApiKey } from "../src/accounts/api-keys.ts";
import { setPlan } from "../src/accounts/plans.ts";
import { canonicalString, hmacSha256Hex, sha256Hex } from "../src/auth/canonical.ts";
import { createSignInLink, csrfTokenFor, redeemSignInLink } from "../src/cabinet/sessions.ts";
import { loadConfig } from "../src/config/load.ts";
import { openContext } from "../src/daemon.ts";
import { cpuOf, loadAverage } from "./support/cpu.ts";
import { type Daemon, firstLine, spawnDaemons, stopAll, writeDaemonConfig } from "./support/daemons.ts";
import { killOnInterrupt, onInterrupt } from "./support/interrupt.ts";

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 100);
const BODY_BYTES = Number(process.env.BENCH_BODY_BYTES ?? 1_048_576);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ONLY = process.env.BENCH_ONLY ?? "";
const RSS_CAP_MB = Number(process.env.BENCH_RSS_CAP_MB ?? 4000);
/** The growth every route must stay under. */
const GROWTH_LIMIT_MB = 100;
const INGEST_TOKEN = "bench-hostile-ingest-token";

const processes: Subprocess[] = [];
killOnInterrupt(processes);
const dir = mkdtempSync(join(tmpdir(), "chainwatch-bench-hostile-"));
onInterrupt(() => rmSync(dir, { recursive: true, force: true }));

try {
  await main();
} finally {
  await stopAll(processes);
  rmSync(dir, { recursive: true, force: true });
}

/** Who sends a case's requests, and how: the headers of one request with `body`. */
type Sender = { who: string; headers(method: string, path: string, body: Uint8Array): Record<string, string> };
type Case = { method: string; path: string; sender: Sender; body: string };
type Row = Case & { statuses: string; beforeMb: number; peakMb: number; growthMb: number; cpuUs: number };
type Seeded = { apiKey: string; secret: string; cookie: string; csrf: string };

async function main(): Promise<void> {
  const bodies: Record<string, Uint8Array> = { "[[[…]]]": deepBody(BODY_BYTES), "[1,1,…]": wideBody(BODY_BYTES) };
  const seedDir = join(dir, "seed");
  mkdirSync(seedDir);
  const extra = ["[rate_limit]", "per_key_rps = 1000000", "[ingest]", `token = "${INGEST_TOKEN}"`, "[cabinet]", "enabled = true"];
  const seedConfig = writeDaemonConfig(seedDir, `sqlite://${seedDir}/chainwatch.db`, extra);
  const seeded = await seed(seedConfig);
  const cases = (await casesFor(seedConfig, seeded)).filter((c) => ONLY.split("|").some((part) => label(c).includes(part)));
  const loadBefore = loadAverage();
  console.log(`${cases.length} cases: ${CONCURRENCY} concurrent requests × ${ROUNDS} rounds, ${BODY_BYTES}-byte bodies, a fresh daemon each`);
  const rows: Row[] = [];
  // The floor: what reading and hashing these bodies costs a bare Bun.serve under the same load.
  for (const b of Object.keys(bodies)) {
    const c: Case = { method: "POST", path: "/", sender: { who: "bare Bun.serve, body read and hashed", headers: () => ({}) }, body: b };
    rows.push(await measure(startBare, c, bodies[b]));
    console.log(`  ${label(c).padEnd(72)} ${rows[rows.length - 1].statuses.padEnd(12)} +${rows[rows.length - 1].growthMb.toFixed(1)} MB`);
  }
  const floorMb = Math.max(...rows.map((r) => r.growthMb));
  for (const [i, c] of cases.entries()) {
    // A copy of the seeded database and its master key for each daemon.
    const sub = join(dir, `c${i}`);
    mkdirSync(sub);
    for (const f of ["chainwatch.db", "master.key"]) copyFileSync(join(seedDir, f), join(sub, f));
    const configPath = writeDaemonConfig(sub, `sqlite://${sub}/chainwatch.db`, extra);
    rows.push(await measure(async () => (await spawnDaemons(configPath, 1, (p) => processes.push(p)))[0]!, c, bodies[c.body]));
    const r = rows[rows.length - 1];
    console.log(`  ${label(r).padEnd(72)} ${r.statuses.padEnd(12)} +${r.growthMb.toFixed(1)} MB`);
  }
  report(rows, floorMb, loadBefore);
}

/** The bare body reader (support/bare-body-reader.ts) on a free port. */
async function startBare(): Promise<Daemon> {
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, "support/bare-body-reader.ts"), "0"], { stdin: "ignore", stdout: "pipe", stderr: "inherit" });
  processes.push(proc);
  const line = await firstLine(proc, (l) => l.startsWith('{"port"'));
  return { proc, url: `http://127.0.0.1:${JSON.parse(line).port}` };
}

/** One case on a fresh server from `start`: warm its path with small bodies, then the hostile rounds. */
async function measure(start: () => Promise<Daemon>, c: Case, body: Uint8Array): Promise<Row> {
  const daemon = await start();
  try {
    const pid = daemon.proc.pid;
    const warm = new TextEncoder().encode('{"warm":[1]}');
    for (let i = 0; i < 5; i++) await send(daemon.url, c, warm, c.sender.headers(c.method, c.path, warm));
    await Bun.sleep(300);
    const beforeMb = statusMb(pid, "VmRSS");
    const resettable = resetPeak(pid);
    let polledMb = beforeMb;
    let killed = false;
    const poll = setInterval(() => {
      polledMb = Math.max(polledMb, statusMb(pid, "VmRSS"));
      if (polledMb > RSS_CAP_MB && !killed) {
        killed = true;
        daemon.proc.kill("SIGKILL");
      }
    }, 5);
    const cpuStart = cpuOf(pid);
    const statuses = new Map<number, number>();
    for (let round = 0; round < ROUNDS && !killed; round++) {
      // Signed once a round: the bench's own hashing stays out of the daemon's window as far as it can.
      const headers = c.sender.headers(c.method, c.path, body);
      const answered = await Promise.all(Array.from({ length: CONCURRENCY }, () => send(daemon.url, c, body, headers)));
      for (const s of answered) statuses.set(s, (statuses.get(s) ?? 0) + 1);
    }
    const cpuMs = cpuOf(pid) - cpuStart;
    await Bun.sleep(100);
    clearInterval(poll);
    const peakMb = killed ? polledMb : resettable ? statusMb(pid, "VmHWM") : Math.max(polledMb, statusMb(pid, "VmRSS"));
    const requests = [...statuses.values()].reduce((a, b) => a + b, 0);
    return {
      ...c,
      statuses: killed ? `killed at ${RSS_CAP_MB} MB` : [...statuses].map(([s, n]) => (statuses.size === 1 ? String(s) : `${s}×${n}`)).join(" "),
      beforeMb,
      peakMb,
      growthMb: peakMb - beforeMb,
      cpuUs: Math.round((cpuMs * 1000) / requests),
    };
  } finally {
    await stopAll([daemon.proc]);
  }
}

/** Sends one request of a case with `headers` and reads its whole answer; the status, or 0 when the connection failed. */
async function send(base: string, c: Case, body: Uint8Array, headers: Record<string, string>): Promise<number> {
  try {
    const res = await fetch(`${base}${c.path}`, { method: c.method, body, headers, redirect: "manual" });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0;
  }
}

/** Every public route that takes a body, each with the senders that matter for it. */
async function casesFor(configPath: string, s: Seeded): Promise<Case[]> {
  const json = { "content-type": "application/json" };
  const stranger: Sender = { who: "no key", headers: () => json };
  const badSignature: Sender = { who: "bad signature", headers: (m, p, b) => ({ ...json, ...signed(s, m, p, b), "X-Signature": "0".repeat(64) }) };
  const owner: Sender = { who: "signed", headers: (m, p, b) => ({ ...json, ...signed(s, m, p, b) }) };
  const cases: Case[] = [];
  for (const { method, path } of await bodyRoutes(configPath)) {
    cases.push({ method, path, sender: stranger, body: "[[[…]]]" });
    cases.push({ method, path, sender: badSignature, body: "[[[…]]]" });
    cases.push({ method, path, sender: badSignature, body: "[1,1,…]" });
    cases.push({ method, path, sender: owner, body: "[[[…]]]" });
  }
  const ingest = (who: string, token: string): Sender => ({ who, headers: () => ({ ...json, authorization: `Bearer ${token}` }) });
  cases.push({ method: "POST", path: "/ingest/blocks", sender: ingest("bad token", "wrong"), body: "[[[…]]]" });
  cases.push({ method: "POST", path: "/ingest/blocks", sender: ingest("bad token", "wrong"), body: "[1,1,…]" });
  cases.push({ method: "POST", path: "/ingest/blocks", sender: ingest("ingest token", INGEST_TOKEN), body: "[[[…]]]" });
  // The sign-in page's post needs no session; a browser on the cabinet's own page says same-origin.
  const visitor: Sender = { who: "no session", headers: () => ({ ...json, "sec-fetch-site": "same-origin" }) };
  const user: Sender = { who: "session", headers: () => ({ ...json, cookie: s.cookie, "x-csrf-token": s.csrf }) };
  cases.push({ method: "POST", path: "/cabinet/login", sender: visitor, body: "[[[…]]]" });
  cases.push({ method: "POST", path: "/cabinet/login", sender: visitor, body: "[1,1,…]" });
  cases.push({ method: "POST", path: "/cabinet/addresses", sender: visitor, body: "[[[…]]]" });
  cases.push({ method: "POST", path: "/cabinet/addresses", sender: user, body: "[[[…]]]" });
  cases.push({ method: "POST", path: "/rpc/eth", sender: stranger, body: "[[[…]]]" });
  cases.push({ method: "POST", path: "/rpc/eth", sender: stranger, body: "[1,1,…]" });
  return cases;
}

/** The /v1 operations of the daemon's OpenAPI document that take a body. */
async function bodyRoutes(configPath: string): Promise<{ method: string; path: string }[]> {
  const [daemon] = await spawnDaemons(configPath, 1, (p) => processes.push(p));
  try {
    const doc = (await (await fetch(`${daemon.url}/openapi/json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const out: { method: string; path: string }[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      if (!path.startsWith("/v1/")) continue;
      for (const method of Object.keys(ops)) {
        if (["post", "put", "patch", "delete"].includes(method)) out.push({ method: method.toUpperCase(), path: path.replace(/\{[^}]+\}/g, "x") });
      }
    }
    return out;
  } finally {
    await stopAll([daemon.proc]);
  }
}

/** An account with a key and a cabinet session, written to the seed database. */
async function seed(configPath: string): Promise<Seeded> {
  const loaded = loadConfig(configPath);
  if (!loaded.ok) throw new Error(loaded.error);
  const ctx = await openContext(loaded.config, { env: {} });
  try {
    const plan = await setPlan(ctx.db, ctx.clock, { name: "bench", slots: 10 });
    if (!plan.ok) throw new Error(plan.error);
    const account = await createAccount(ctx, { name: "hostile", plan: "bench", credits: 1000 });
    if (!account.ok) throw new Error(account.error);
    const key = await createApiKey(ctx, { accountId: account.account.id, allowIps: [] });
    if (!key.ok) throw new Error(key.error);
    const { token } = await createSignInLink(ctx, account.account.id, 3_600_000);
    const session = await redeemSignInLink(ctx, token);
    if (!session.ok) throw new Error("sign-in failed");
    return { apiKey: key.key.api_key, secret: key.key.secret, cookie: `chainwatch_session=${session.sessionToken}`, csrf: csrfTokenFor(session.sessionToken) };
  } finally {
    await ctx.db.destroy();
  }
}

function signed(s: Seeded, method: string, path: string, body: Uint8Array): Record<string, string> {
  const ts = String(Math.floor(Date.now() / 1000));
  return { "X-Api-Key": s.apiKey, "X-Timestamp": ts, "X-Signature": hmacSha256Hex(s.secret, canonicalString(ts, method, path, sha256Hex(body))) };
}

/** `[[[…]]]`: arrays nested half the body deep. */
function deepBody(bytes: number): Uint8Array {
  const half = Math.floor(bytes / 2);
  return new TextEncoder().encode("[".repeat(half) + "]".repeat(half));
}

/** `[1,1,…,1]`: one array as wide as the body. */
function wideBody(bytes: number): Uint8Array {
  const ones = Math.max(1, Math.floor((bytes - 1) / 2));
  return new TextEncoder().encode(`[${"1,".repeat(ones - 1)}1]`);
}

/** A /proc/<pid>/status figure (VmRSS, VmHWM) in MB. */
function statusMb(pid: number, field: string): number {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Resets the process's peak RSS (VmHWM) to its current RSS; false where the kernel refuses. */
function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

function label(c: Case): string {
  return `${c.method} ${c.path} · ${c.sender.who} · ${c.body}`;
}

function report(rows: Row[], floorMb: number, loadBefore: string): void {
  const head = `${"route · sender · body".padEnd(72)} ${"status".padEnd(12)} ${"RSS MB".padStart(7)} ${"peak MB".padStart(8)} ${"growth".padStart(7)} ${"CPU µs/req".padStart(11)}`;
  console.log("");
  console.log(head);
  for (const r of rows) {
    console.log(
      `${label(r).padEnd(72)} ${r.statuses.padEnd(12)} ${r.beforeMb.toFixed(1).padStart(7)} ${r.peakMb.toFixed(1).padStart(8)} ${r.growthMb.toFixed(1).padStart(7)} ${String(r.cpuUs).padStart(11)}`,
    );
  }
  console.log("");
  console.log(`load average ${loadBefore} before, ${loadAverage()} after; ${navigator.hardwareConcurrency} cores`);
  const routes = rows.filter((r) => r.path !== "/");
  const worst = routes.reduce((a, b) => (b.growthMb > a.growthMb ? b : a));
  const over = routes.filter((r) => r.growthMb >= GROWTH_LIMIT_MB);
  console.log(`the floor, a bare Bun.serve reading and hashing the same bodies: +${floorMb.toFixed(1)} MB`);
  console.log(
    over.length === 0
      ? `every route stayed under ${GROWTH_LIMIT_MB} MB of growth (largest: +${worst.growthMb.toFixed(1)} MB, ${label(worst)})`
      : `${over.length} of ${routes.length} cases grew ${GROWTH_LIMIT_MB} MB or more: ${over.map((r) => `${label(r)} +${r.growthMb.toFixed(0)} MB`).join("; ")}`,
  );
}
