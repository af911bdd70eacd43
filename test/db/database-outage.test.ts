import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApiKey } from "../../src/accounts/api-keys.ts";
import type { Context } from "../../src/daemon.ts";
import { storedTip } from "../../src/follow/core/chain-store.ts";
import { chainOf, type FakeNode, hashOf, startFakeNode } from "../follow/fake-node.ts";
import { openWithWatcher, type ServeProcess, spawnLoggedServe } from "../follow/support.ts";
import { onPostgres, signedHeaders } from "../support/harness.ts";
import { postgresOnly } from "../support/postgres-only.ts";
import { until } from "../support/poll.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";

// PostgreSQL restarting and stalling under load (docs/operations.md): two daemons on a cluster this
// test starts (so it can restart and stop it without touching the suite's shared server), a
// follower ingesting a payment per block, webhooks in flight and signed API requests to both.
// While the database is away every request is answered — 200, or 503 {"error"} within the
// connection and query bounds, never a 500 or a hang — and /healthz says why; afterwards every
// daemon is back on its own, no payment webhook is lost and no event stored twice.
//
// The stall is a SIGSTOP of the whole server (postmaster and backends, as a paused VM would be) for
// 4 s, not 20 s: with connect_timeout_ms = 1000 and query_timeout_ms = 1500 it outlasts every bound
// a request has, which is what a 20 s stall would show, in a fifth of the time.

const PG_CTL = Bun.which("pg_ctl") ?? [...new Bun.Glob("/usr/lib/postgresql/*/bin/pg_ctl").scanSync("/")].sort().pop() ?? null;
const POSTGRES_SH = join(import.meta.dir, "../support/postgres.sh");
const CONNECT_MS = 1000;
const QUERY_MS = 1500;
const STALL_MS = 4000;
/** The longest a request may take while the database is away: both bounds, and the answer's own time. */
const ANSWER_BOUND_MS = CONNECT_MS + QUERY_MS + 1500;
const W = "0x00000000000000000000000000000000000a11ce";
const SENDER = "0x00000000000000000000000000000000000000b0";

type Answer = { daemon: number; status: number; ms: number; body: string; at: number };

// It runs with the PostgreSQL run of the suite (CHAINWATCH_TEST_DATABASE_URL set), once, though it
// brings its own cluster: the SQLite run has nothing of its own to show here.
const RUN = onPostgres && PG_CTL !== null;

describe.skipIf(!RUN)(postgresOnly(PG_CTL ? "PostgreSQL restarts and stalls under load" : "PostgreSQL restarts and stalls [skipped: no pg_ctl]"), () => {
  let pgDir: string;
  let dir: string;
  let url: string;
  let node: FakeNode;
  let sink: WebhookSink;
  let ctx: Context;
  let creds: { apiKey: string; secret: string };
  const daemons: ServeProcess[] = [];
  const answers: Answer[] = [];
  let loadOn = false;
  let height = 0;
  const payments: string[] = [];

  const asPostgres = (cmd: string[]) => (process.getuid?.() === 0 ? ["runuser", "-u", "postgres", "--", ...cmd] : cmd);
  const postmasterPid = () => Number(readFileSync(join(pgDir, "data", "postmaster.pid"), "utf8").split("\n")[0]);
  /** The postmaster and every backend it forked: the whole server. */
  const serverPids = () => {
    const pid = postmasterPid();
    const children = Bun.spawnSync(["ps", "-o", "pid=", "--ppid", String(pid)]).stdout.toString().split(/\s+/).filter(Boolean).map(Number);
    return [pid, ...children];
  };
  /**
   * Stops the whole server: the postmaster first, so it forks no backend after its children are
   * listed (a connection opened between the listing and the stop would leave a backend running
   * that a daemon could go on using), then every backend. Answers what it stopped.
   */
  const stopServer = () => {
    const postmaster = postmasterPid();
    process.kill(postmaster, "SIGSTOP");
    const pids = serverPids();
    for (const pid of pids) if (pid !== postmaster) process.kill(pid, "SIGSTOP");
    return pids;
  };

  beforeAll(async () => {
    pgDir = mkdtempSync(join(tmpdir(), "chainwatch-outage-pg-"));
    const started = Bun.spawnSync(["bash", POSTGRES_SH, "start", pgDir], { stdout: "pipe", stderr: "pipe" });
    if (started.exitCode !== 0) throw new Error(`cannot start PostgreSQL: ${started.stderr.toString()}`);
    url = started.stdout.toString().trim();
    node = startFakeNode({ chainId: 31337, blocks: chainOf("a", 0, 0) });
    sink = startWebhookSink();
    // Webhooks take a while to answer: some are always in flight when the database goes.
    sink.respond(async () => {
      await Bun.sleep(30);
      return new Response("ok");
    });
    dir = mkdtempSync(join(tmpdir(), "chainwatch-outage-"));
    const config = join(dir, "chainwatch.toml");
    writeFileSync(
      config,
      [
        "[server]",
        'host = "127.0.0.1"',
        "port = 0",
        "[database]",
        `url = "${url}"`,
        `connect_timeout_ms = ${CONNECT_MS}`,
        `query_timeout_ms = ${QUERY_MS}`,
        "[secrets]",
        `master_key_file = "${dir}/master.key"`,
        "[billing]",
        "enabled = false",
        "[rate_limit]",
        "per_key_rps = 1000",
        "[delivery]",
        "allow_private_targets = true",
        "interval_seconds = 1",
        "timeout_ms = 1000",
        // A send whose settlement met the outage goes out again after the lease: short, for the test.
        "lease_seconds = 3",
        "backoff_seconds = [1]",
        "[networks.anv]",
        'family = "evm"',
        "confirmations = 1",
        `rpc_urls = ["${node.url}"]`,
        "follow = true",
        "start_height = 0",
        "poll_interval_ms = 100",
        "",
      ].join("\n"),
    );
    const opened = await openWithWatcher(config, { name: "outage", address: W, webhookUrl: sink.url });
    ctx = opened.ctx;
    const key = await createApiKey(ctx, { accountId: opened.accountId, allowIps: [] });
    if (!key.ok) throw new Error(key.error);
    creds = { apiKey: key.key.api_key, secret: key.key.secret };
    for (let i = 0; i < 2; i++) daemons.push(await spawnLoggedServe(config));
  });

  afterAll(async () => {
    loadOn = false;
    if (pgDir) for (const pid of serverPids()) process.kill(pid, "SIGCONT");
    for (const d of daemons) {
      if (d.proc.exitCode === null && d.proc.signalCode === null) d.proc.kill("SIGTERM");
      await d.proc.exited;
    }
    await ctx?.db.destroy();
    await sink?.stop();
    node?.stop();
    if (pgDir) Bun.spawnSync(["bash", POSTGRES_SH, "stop", pgDir]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** A new block every 100 ms, each with one payment to W: the follower always has work. */
  const mine = async () => {
    while (loadOn) {
      height++;
      const tx = { hash: hashOf("f", height), from: SENDER, to: W, value: "0x1" };
      node.blocks.set(height, chainOf("a", height, height, hashOf("a", height - 1), { [height]: [tx] })[0]);
      payments.push(tx.hash);
      await Bun.sleep(100);
    }
  };
  /** Signed API requests to each daemon, one after another, every 50 ms; every answer recorded. */
  const call = async (i: number) => {
    while (loadOn) {
      const started = performance.now();
      const path = "/v1/account";
      let status = 0;
      let body = "";
      try {
        const res = await fetch(`${daemons[i].url}${path}`, { headers: signedHeaders(creds, "GET", path), signal: AbortSignal.timeout(15_000) });
        status = res.status;
        body = await res.text();
      } catch (e) {
        body = String(e);
      }
      answers.push({ daemon: i, status, ms: performance.now() - started, body, at: Date.now() });
      await Bun.sleep(50);
    }
  };
  const healthz = async (i: number) => {
    const res = await fetch(`${daemons[i].url}/healthz`, { signal: AbortSignal.timeout(15_000) });
    return { status: res.status, body: (await res.json()) as { ok: boolean; error?: string } };
  };
  /** Until both daemons answer the API and /healthz again, and the follower has caught up with the node. */
  const recovered = async () => {
    await until(
      async () => {
        const api = await Promise.all(daemons.map((d) => fetch(`${d.url}/v1/account`, { headers: signedHeaders(creds, "GET", "/v1/account") }).then((r) => r.status)));
        const health = await Promise.all(daemons.map((_, i) => healthz(i).then((h) => h.status)));
        return [...api, ...health];
      },
      (s) => s.every((x) => x === 200),
      30_000,
    );
    const head = height;
    await until(async () => (await storedTip(ctx.db, "anv"))?.height ?? -1, (h) => h >= head, 30_000);
  };
  const figures: string[] = [];

  test(
    "pg_ctl restart -m fast, then a stall of the whole server: answers are 200 or a prompt 503, /healthz says why, nothing lost or duplicated",
    async () => {
      loadOn = true;
      const load = [mine(), call(0), call(1)];
      await until(async () => sink.received.length, (n) => n >= 10, 30_000);

      // 1. A fast restart: every session is ended (57P01) and connections are refused for a moment.
      let from = answers.length;
      const restartAt = performance.now();
      const restarted = Bun.spawnSync(asPostgres([PG_CTL as string, "-D", join(pgDir, "data"), "-l", join(pgDir, "server.log"), "-m", "fast", "-w", "restart"]), { stderr: "pipe" });
      expect(restarted.exitCode).toBe(0);
      const restartDownMs = performance.now() - restartAt;
      await recovered();
      const restartRecoverMs = performance.now() - restartAt;
      const duringRestart = answers.slice(from);
      figures.push(
        `pg_ctl restart -m fast: down ${Math.round(restartDownMs)} ms, all daemons answering and caught up ${Math.round(restartRecoverMs)} ms after it began; ` +
          `answers meanwhile ${duringRestart.length} (503: ${duringRestart.filter((a) => a.status === 503).length}), slowest ${Math.round(Math.max(...duringRestart.map((a) => a.ms)))} ms`,
      );
      expect(duringRestart.filter((a) => a.status !== 200 && a.status !== 503)).toEqual([]);
      for (const a of duringRestart.filter((a) => a.status === 503)) expect(JSON.parse(a.body)).toEqual({ error: "Database unavailable; try again shortly." });

      // 2. The whole server stopped (a paused VM): connections neither answer nor close.
      from = answers.length;
      const stalledAt = performance.now();
      const pids = stopServer();
      // /healthz answers within its 2 s wait, naming the database.
      const health = await until(() => healthz(0), (h) => h.status === 503, 5_000);
      expect(health.body.ok).toBe(false);
      expect(health.body.error).toStartWith("database unavailable: ");
      // The API answers 503 promptly while the server is stopped.
      await until(async () => answers.slice(from).filter((a) => a.status === 503).map((a) => a.daemon), (d) => d.includes(0) && d.includes(1), STALL_MS);
      const left = STALL_MS - (performance.now() - stalledAt);
      if (left > 0) await Bun.sleep(left);
      for (const pid of pids) process.kill(pid, "SIGCONT");
      const resumedAt = performance.now();
      await recovered();
      const stallRecoverMs = performance.now() - resumedAt;
      const duringStall = answers.slice(from);
      figures.push(
        `SIGSTOP of the server for ${STALL_MS} ms: all daemons answering and caught up ${Math.round(stallRecoverMs)} ms after SIGCONT; ` +
          `answers meanwhile ${duringStall.length} (503: ${duringStall.filter((a) => a.status === 503).length}), slowest ${Math.round(Math.max(...duringStall.map((a) => a.ms)))} ms; /healthz: ${health.body.error}`,
      );
      expect(duringStall.filter((a) => a.status !== 200 && a.status !== 503)).toEqual([]);
      expect(duringStall.filter((a) => a.ms > ANSWER_BOUND_MS).map((a) => Math.round(a.ms))).toEqual([]);
      for (const a of duringStall.filter((a) => a.status === 503)) expect(JSON.parse(a.body)).toEqual({ error: "Database unavailable; try again shortly." });

      // Load off; every payment mined gets its one event and reaches the receiver.
      loadOn = false;
      await Promise.all(load);
      await recovered();
      const events = await ctx.db.selectFrom("events").select("body").where("network", "=", "anv").where("type", "=", "payment").execute();
      const eventTxs = events.map((e) => (JSON.parse(e.body) as { tx_hash: string }).tx_hash);
      expect(eventTxs.length).toBe(new Set(eventTxs).size);
      expect([...eventTxs].sort()).toEqual([...payments].sort());
      await until(async () => (await ctx.db.selectFrom("deliveries").select("id").where("status", "!=", "succeeded").execute()).length, (n) => n === 0, 30_000);
      const received = new Map<string, number>();
      for (const r of sink.received) {
        const b = JSON.parse(r.body) as { type?: string; tx_hash?: string };
        if (b.type === "payment" && b.tx_hash) received.set(b.tx_hash, (received.get(b.tx_hash) ?? 0) + 1);
      }
      const lost = payments.filter((p) => !received.has(p));
      const twice = [...received.values()].filter((n) => n > 1).length;
      figures.push(`load: ${payments.length} blocks with a payment each (10/s), ${answers.length} API requests over 2 daemons; lost ${lost.length}, events duplicated 0, payment webhooks received twice ${twice} (at least once)`);
      console.log(figures.join("\n"));
      expect(lost).toEqual([]);
      // Each daemon logged no unexpected failure of a request.
      for (const d of daemons) expect(d.lines.filter((l) => l.msg === "unhandled error")).toEqual([]);
    },
    { timeout: 180_000 },
  );
});
