import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAccount } from "../../src/accounts/accounts.ts";
import { setPlan } from "../../src/accounts/plans.ts";
import { addWatch } from "../../src/watch/watches.ts";
import { type Context, openContext, type RunningDaemon, startDaemon } from "../../src/daemon.ts";
import { testPayments } from "../../src/payments/sample-order.ts";
import { queueTest } from "../../src/webhooks/test-endpoint.ts";
import { manualClock } from "../support/clock.ts";
import { jsonLogger, type LogLevel } from "../../src/lib/log.ts";
import { INGEST_TOKEN, testConfig } from "../support/harness.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import { until } from "../support/poll.ts";
import { setDefaultEndpoint } from "../support/endpoints.ts";

// What `serve` logs at each `[log] level`: a real daemon on an ephemeral port, its JSON lines captured.
type Line = Record<string, unknown> & { level: string; msg: string };
let dir: string;
let ctx: Context;
let daemon: RunningDaemon;
let sink: WebhookSink | undefined;
const clock = manualClock(Date.UTC(2026, 10, 23, 9, 0, 0));

async function start(level: LogLevel, networks: Record<string, unknown> = {}): Promise<Line[]> {
  dir = mkdtempSync(join(tmpdir(), "chainwatch-log-"));
  const lines: Line[] = [];
  const log = jsonLogger((l) => lines.push(JSON.parse(l)), () => clock.now(), level);
  ctx = await openContext(testConfig(dir, { log: { level }, networks }), { clock, log, env: {} });
  daemon = await startDaemon(ctx);
  return lines;
}

afterEach(async () => {
  await daemon.stop();
  await sink?.stop();
  sink = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const W = "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed";
const block = (height: number) => ({
  network: "eth",
  height,
  hash: `0xb${height}`,
  transactions: [{ hash: `0xt${height}`, from: "0x1111111111111111111111111111111111111111", to: W, value: "5" }],
});
const ingest = (batch: unknown) =>
  fetch(`${daemon.url}/ingest/blocks`, { method: "POST", body: JSON.stringify(batch), headers: { Authorization: `Bearer ${INGEST_TOKEN}` } });

describe("serve's log", () => {
  test("at debug, every refused request is logged with method, path, status and the error", async () => {
    const lines = await start("debug");
    expect((await fetch(`${daemon.url}/v1/account`)).status).toBe(401);
    expect((await fetch(`${daemon.url}/nowhere?x=1`)).status).toBe(404);
    expect(lines.filter((l) => l.msg === "request refused")).toEqual([
      { time: expect.any(String), level: "debug", msg: "request refused", method: "GET", path: "/v1/account", status: 401, error: "Missing X-Api-Key" },
      { time: expect.any(String), level: "debug", msg: "request refused", method: "GET", path: "/nowhere", status: 404, error: "Not found." },
    ]);
  });

  test("a logged /rpc path never carries the API key of the path form", async () => {
    const lines = await start("debug");
    const key = "6f1c2a9e-8d4b-4c1e-9a7f-3b2d5e6f7a8b";
    const paths = [`/rpc/eth/${key}/extra`, `/rpc/eth/${key}/`, "/rpc/eth/not-a-uuid-but-secret/x", `/rpcs/eth/${key.toUpperCase()}`];
    for (const path of paths) expect((await fetch(`${daemon.url}${path}`, { method: "POST", body: "{}" })).status).toBe(404);
    expect(lines.filter((l) => l.msg === "request refused").map((l) => l.path)).toEqual(["/rpc/eth/***", "/rpc/eth/***", "/rpc/eth/***", "/rpcs/eth/***"]);
    const all = JSON.stringify(lines).toLowerCase();
    expect(all).not.toContain(key);
    expect(all).not.toContain("not-a-uuid-but-secret");
  });

  test("at info, refused requests are not logged", async () => {
    const lines = await start("info");
    expect((await fetch(`${daemon.url}/v1/account`)).status).toBe(401);
    expect(lines.filter((l) => l.level === "debug")).toEqual([]);
    expect(lines.map((l) => l.msg)).toContain("listening");
  });

  test("start-up says, one line a network, where its blocks come from and whether /rpc serves it", async () => {
    // Nothing listens on port 1: the follower only has to exist, not to read anything.
    const lines = await start("info", {
      dev: { family: "evm", confirmations: 1, rpc_urls: ["http://127.0.0.1:1"], follow: true },
      proxied: { family: "evm", rpc_urls: ["http://127.0.0.1:1"] },
    });
    const line = (network: string, family: string, blocks_from = "ingest", rpc = false) => ({ time: expect.any(String), level: "info", msg: "network", network, family, blocks_from, rpc });
    expect(lines.filter((l) => l.msg === "network")).toEqual([
      line("eth", "evm"),
      line("bsc", "evm"),
      line("polygon", "evm"),
      line("btc", "btc"),
      line("tron", "tron"),
      line("sol", "solana"),
      line("dev", "evm", "follower", true),
      line("proxied", "evm", "ingest", true),
    ]);
    // Said with the address it listens on, before anything else happens.
    expect(lines.findIndex((l) => l.msg === "network")).toBe(lines.findIndex((l) => l.msg === "listening") + 1);
  });

  test("an ingest that stores blocks is logged at info; a re-sent batch only at debug", async () => {
    const lines = await start("debug");
    const plan = await setPlan(ctx.db, ctx.clock, { name: "p", slots: 5 });
    expect(plan.ok).toBe(true);
    const acct = await createAccount(ctx, { name: "acme", plan: "p" });
    if (!acct.ok) throw new Error(acct.error);
    await addWatch(ctx.db, { accountId: acct.account.id, network: "eth", address: W, now: ctx.clock.now() });
    expect((await ingest([block(7), block(8)])).status).toBe(202);
    expect((await ingest([block(8)])).status).toBe(202);
    const ingests = lines.filter((l) => l.msg.startsWith("ingested"));
    expect(ingests).toEqual([
      { time: expect.any(String), level: "info", msg: "ingested", networks: ["eth"], received: 2, blocks: 2, events: 4, from_height: 7, to_height: 8 },
      { time: expect.any(String), level: "debug", msg: "ingested nothing new", networks: ["eth"], received: 1, blocks: 0, events: 0, from_height: 8, to_height: 8 },
    ]);
  });

  test("a receiver failing five times in a row is logged once as failing and once when it recovers, not per attempt", async () => {
    const lines = await start("info");
    sink = startWebhookSink();
    sink.respond(() => new Response("down", { status: 503 }));
    const acct = await createAccount(ctx, { name: "acme" });
    if (!acct.ok) throw new Error(acct.error);
    const url = `${sink.url}?token=kept-out-of-logs`;
    await setDefaultEndpoint(ctx.db, acct.account.id, { url, enabled: true });
    for (let i = 0; i < 5; i++) {
      const queued = await queueTest({ ...ctx, payments: testPayments, wakeDelivery: () => {} }, acct.account.id, "default", { event: "payment", network: "eth" });
      expect(queued.ok).toBe(true);
    }
    daemon.deps.wakeDelivery();
    await sink.waitFor(5);
    const attempts = () => ctx.db.selectFrom("delivery_attempts").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
    await until(attempts, (r) => Number(r.n) === 5);
    // The receiver comes back; the retries (1 s backoff on the manual clock) succeed.
    sink.respond(() => new Response("ok"));
    clock.advance(2000);
    daemon.deps.wakeDelivery();
    await sink.waitFor(10);
    const succeeded = () =>
      ctx.db.selectFrom("deliveries").select((eb) => eb.fn.countAll<number>().as("n")).where("status", "=", "succeeded").executeTakeFirstOrThrow();
    await until(succeeded, (r) => Number(r.n) === 5);
    const health = lines.filter((l) => l.msg.startsWith("webhook endpoint"));
    expect(health).toEqual([
      {
        time: expect.any(String),
        level: "warn",
        msg: "webhook endpoint failing",
        account_id: acct.account.id,
        url: new URL(sink.url).origin,
        delivery_id: expect.stringMatching(/^dlv_/),
        error: "http 503",
        status_code: 503,
        failures: 5,
      },
      { time: expect.any(String), level: "info", msg: "webhook endpoint recovered", account_id: acct.account.id, url: new URL(sink.url).origin, delivery_id: expect.stringMatching(/^dlv_/) },
    ]);
    expect(JSON.stringify(lines)).not.toContain("kept-out-of-logs");
  });
});
