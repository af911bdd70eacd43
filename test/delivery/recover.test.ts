import { afterAll, afterEach, beforeAll, describe, expect, it, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAccount } from "../../src/accounts/accounts.ts";
import { deliveryPrice } from "../../src/billing/pricing.ts";
import { openContext, type Context } from "../../src/daemon.ts";
import { deliveriesWithBodies, type EnqueueInput, enqueueDeliveries } from "../../src/delivery/outbox.ts";
import { MAX_RECOVERED_PER_CALL, recoverEndpoint } from "../../src/webhooks/recover.ts";
import { Value } from "@sinclair/typebox/value";
import { SCHEMAS } from "../../src/http/openapi/schemas.ts";
import { alertOf, noticeOf, signIn } from "../cabinet/support.ts";
import { manualClock } from "../support/clock.ts";
import { startTestDaemon, type TestClient, type TestDaemon, testConfig } from "../support/harness.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import { runCli, until, writeToml } from "./fixtures.ts";
import { allSucceeded, block, deliveriesOf, exhaustAttempts, ingest, watchAndHook } from "./recovery-support.ts";
import { defaultEndpointId } from "../support/endpoints.ts";

// POST /v1/address-watch/webhook/recover and `chainwatch deliveries recover` (docs/webhooks.md).

const W = "0x1111111111111111111111111111111111111111";
const V = "0x2222222222222222222222222222222222222222";
const CREDITS = 1_000_000;

describe("recovering after a receiver was down until every attempt failed", () => {
  const clock = manualClock();
  const t0 = clock.now();
  let td: TestDaemon;
  let sink: WebhookSink;
  let otherSink: WebhookSink;
  let a: TestClient;
  let other: TestClient;
  let testDeliveryId: string;

  beforeAll(async () => {
    // One send at a time, so the arrival order is the order the loop takes the rows in.
    // The manual clock stands still between steps, so the per-key limit would count every request as one second's.
    td = await startTestDaemon({
      clock,
      config: { delivery: { backoff_seconds: [5, 30], max_attempts: 3, concurrency: 1 }, rate_limit: { per_key_rps: 1000 } },
    });
    sink = startWebhookSink();
    otherSink = startWebhookSink();
    sink.respond(() => new Response("down", { status: 500 }));
    otherSink.respond(() => new Response("down", { status: 500 }));
    a = await td.client({ credits: CREDITS });
    other = await td.client({ credits: CREDITS });
    await watchAndHook(a, W, sink.url);
    await watchAndHook(other, V, otherSink.url);
    // Three blocks ten seconds apart: a gets a block and a payment event from each of the first
    // two, and the third block's event; the other account gets the blocks and the third payment.
    await ingest(td, block(1, [W]));
    clock.advance(10_000);
    await ingest(td, block(2, [W]));
    clock.advance(10_000);
    await ingest(td, block(3, [V]));
    const queued = await a.request("POST", "/v1/address-watch/webhook/test", { event: "payment", network: "eth" });
    testDeliveryId = ((await queued.json()) as { delivery_id: string }).delivery_id;
    await exhaustAttempts(td, clock, [a.accountId, other.accountId]);
  });
  afterAll(async () => {
    await td.stop();
    await sink.stop();
    await otherSink.stop();
  });

  test("every delivery used up its attempts against the receiver that answered 500", async () => {
    const rows = await deliveriesOf(td, a.accountId);
    expect(rows.map((d) => [d.kind, d.event_type, d.status, d.attempts, d.last_status_code])).toEqual([
      ["event", "block", "failed", 3, 500],
      ["event", "payment", "failed", 3, 500],
      ["event", "block", "failed", 3, 500],
      ["event", "payment", "failed", 3, 500],
      ["event", "block", "failed", 3, 500],
      ["test", "payment", "failed", 3, 500],
    ]);
    expect(sink.received.length).toBe(18);
  });

  test("a range re-queues only the failed deliveries queued in it; once back, the receiver gets each once, oldest first", async () => {
    sink.received.length = 0;
    sink.respond(() => new Response("ok"));
    const before = await deliveriesOf(td, a.accountId);
    const secondBlock = before.filter((d) => d.created_at === t0 + 10_000);
    expect(secondBlock.length).toBe(2);

    const res = await a.request("POST", "/v1/address-watch/webhook/recover", { since: (t0 + 10_000) / 1000, until: (t0 + 20_000) / 1000 });
    expect(res.status).toBe(200);
    const answer = await res.json();
    expect(answer).toEqual({ requeued: 2, more: false });
    expect(Value.Check(SCHEMAS.RecoverResult, answer)).toBe(true);
    const again = await a.request("POST", "/v1/address-watch/webhook/recover", { since: (t0 + 10_000) / 1000, until: (t0 + 20_000) / 1000 });
    expect(await again.json()).toEqual({ requeued: 0, more: false });

    const done = await allSucceeded(td, a.accountId, secondBlock.map((d) => d.id));
    await Bun.sleep(50);
    expect(sink.received.map((r) => [r.headers["webhook-id"], r.body])).toEqual(secondBlock.map((d) => [d.id, d.body]));
    // The same delivery, a fresh schedule: its attempts start again at 1, and the log keeps the old ones.
    expect(done.map((d) => [d.status, d.attempts, d.last_status_code])).toEqual([
      ["succeeded", 1, 200],
      ["succeeded", 1, 200],
    ]);
    for (const r of sink.received) expect(r.headers["x-webhook-replay"]).toBeUndefined();
  });

  test("without until, everything failed since `since` goes, oldest first; tests stay failed", async () => {
    sink.received.length = 0;
    const failed = (await deliveriesOf(td, a.accountId)).filter((d) => d.status === "failed" && d.kind !== "test");
    expect(failed.map((d) => d.created_at)).toEqual([t0, t0, t0 + 20_000]);

    const res = await a.request("POST", "/v1/address-watch/webhook/recover", { since: t0 / 1000 });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ requeued: 3, more: false });
    await allSucceeded(td, a.accountId, failed.map((d) => d.id));
    await Bun.sleep(50);
    expect(sink.received.map((r) => [r.headers["webhook-id"], r.body])).toEqual(failed.map((d) => [d.id, d.body]));

    const again = await a.request("POST", "/v1/address-watch/webhook/recover", { since: t0 / 1000 });
    expect(await again.json()).toEqual({ requeued: 0, more: false });
    expect((await deliveriesOf(td, a.accountId)).find((d) => d.id === testDeliveryId)).toMatchObject({ kind: "test", status: "failed", attempts: 3 });
  });

  test("recovered deliveries are charged on success like any other", async () => {
    const rows = (await deliveriesOf(td, a.accountId)).filter((d) => d.kind === "event");
    expect(rows.every((d) => d.status === "succeeded")).toBe(true);
    for (const d of rows) expect(Number(d.credits_charged)).toBe(deliveryPrice(td.config, d));
    const spent = rows.reduce((sum, d) => sum + Number(d.credits_charged), 0);
    expect(spent).toBeGreaterThan(0);
    const account = await td.ctx.db.selectFrom("accounts").select("credits").where("id", "=", a.accountId).executeTakeFirstOrThrow();
    expect(Number(account.credits)).toBe(CREDITS - spent);
  });

  test("another account's failed deliveries are left alone", async () => {
    const theirs = await deliveriesOf(td, other.accountId);
    expect(theirs.length).toBe(4);
    expect(theirs.every((d) => d.status === "failed" && d.attempts === 3)).toBe(true);
    expect(otherSink.received.length).toBe(12);
  });

  it.each([
    ["no since", {}, "since is required"],
    ["since not an integer", { since: "yesterday" }, "since must be an integer"],
    ["since negative", { since: -1 }, "since must be at least 0"],
    ["since in the future", { since: Math.floor(clock.now() / 1000) + 3600 }, "since must not be in the future"],
    ["until equal to since", { since: t0 / 1000, until: t0 / 1000 }, "until must be after since"],
    ["until before since", { since: t0 / 1000, until: t0 / 1000 - 1 }, "until must be after since"],
    ["an unknown field", { since: t0 / 1000, status: "failed" }, "status is not a known field"],
  ])("refuses %s with 400 naming the field", async (_name, body, error) => {
    const res = await a.request("POST", "/v1/address-watch/webhook/recover", body);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error });
  });

  test("refuses a body that is not JSON, and an unsigned request", async () => {
    const bad = await a.request("POST", "/v1/address-watch/webhook/recover", "{since:");
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: "Invalid JSON body." });
    const unsigned = await fetch(`${td.url}/v1/address-watch/webhook/recover`, { method: "POST", body: "{}", headers: { "content-type": "application/json" } });
    expect(unsigned.status).toBe(401);
    expect(await unsigned.json()).toEqual({ error: "Missing X-Api-Key" });
  });
});

describe("a recovery is bounded per call", () => {
  let dir: string;
  let ctx: Context;
  const clock = manualClock();
  afterEach(async () => {
    await ctx.db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  test(`re-queues ${MAX_RECOVERED_PER_CALL} a call, oldest first and due now, and says when more remain`, async () => {
    dir = mkdtempSync(join(tmpdir(), "chainwatch-recover-"));
    ctx = await openContext(testConfig(dir), { clock, env: {} });
    const made = await createAccount(ctx, { name: "big" });
    if (!made.ok) throw new Error(made.error);
    const accountId = made.account.id;
    const t0 = clock.now();
    const endpointId = await defaultEndpointId(ctx.db, accountId);
    const row = (i: number, kind: "event" | "payment" | "test"): EnqueueInput => ({
      accountId,
      endpointId: kind === "payment" ? null : endpointId,
      kind,
      eventType: kind === "payment" ? "payment_order" : "payment",
      network: "eth",
      body: `{"n":${i}}`,
      // Two per millisecond: ties on the creation time are ordered by id.
      nowMs: t0 + Math.floor(i / 2),
      id: `dlv_${String(i).padStart(24, "0")}`,
    });
    const kinds = ["event", "payment", "test"] as const;
    await enqueueDeliveries(ctx.db, Array.from({ length: MAX_RECOVERED_PER_CALL + 8 }, (_, i) => row(i, i < 10 ? kinds[i % 3] : "event")));
    await ctx.db.updateTable("deliveries").set({ status: "failed", attempts: 8, completed_at: t0 }).execute();
    clock.advance(3_600_000);
    const deps = { db: ctx.db, clock, wakeDelivery: () => {} };

    const first = await recoverEndpoint(deps, accountId, "default", { since: t0 / 1000 });
    expect(first).toEqual({ ok: true, requeued: MAX_RECOVERED_PER_CALL, more: true });
    const pending = await deliveriesWithBodies(ctx.db)
      .where("status", "=", "pending")
      .orderBy("next_attempt_at")
      .execute();
    expect(pending.length).toBe(MAX_RECOVERED_PER_CALL);
    // Tests are never recovered; everything else oldest first, each due a millisecond after the one before, the last due now.
    expect(pending.some((d) => d.kind === "test")).toBe(false);
    const order = pending.map((d) => (JSON.parse(d.body) as { n: number }).n);
    expect(order.slice(0, 7)).toEqual([0, 1, 3, 4, 6, 7, 9]);
    expect(order).toEqual([...order].sort((x, y) => x - y));
    expect(new Set(pending.map((d) => d.next_attempt_at)).size).toBe(MAX_RECOVERED_PER_CALL);
    expect(pending[pending.length - 1].next_attempt_at).toBe(clock.now());
    expect(pending.every((d) => d.attempts === 0 && d.completed_at === null)).toBe(true);

    const second = await recoverEndpoint(deps, accountId, "default", { since: t0 / 1000 });
    expect(second).toEqual({ ok: true, requeued: 5, more: false });
    const third = await recoverEndpoint(deps, accountId, "default", { since: t0 / 1000 });
    expect(third).toEqual({ ok: true, requeued: 0, more: false });
    const left = await ctx.db.selectFrom("deliveries").select("kind").where("status", "=", "failed").execute();
    expect(left).toEqual([{ kind: "test" }, { kind: "test" }, { kind: "test" }]);
  }, 60_000);
});

describe("chainwatch deliveries recover (docs/cli.md)", () => {
  let td: TestDaemon;
  let sink: WebhookSink;
  let a: TestClient;
  let config: string;

  beforeAll(async () => {
    td = await startTestDaemon({ config: { delivery: { backoff_seconds: [0], max_attempts: 1, concurrency: 1 } } });
    sink = startWebhookSink();
    sink.respond(() => new Response("down", { status: 503 }));
    a = await td.client({ name: "recover-cli", credits: CREDITS });
    await watchAndHook(a, W, sink.url, { block: false });
    await ingest(td, block(1, [W, W]));
    await until(() => deliveriesOf(td, a.accountId), (ds) => ds.length === 2 && ds.every((d) => d.status === "failed"));
    config = writeToml(td.dir);
  });
  afterAll(async () => {
    await td.stop();
    await sink.stop();
  });

  test("re-queues the account's failed deliveries of the last 24 hours and prints the count", async () => {
    sink.received.length = 0;
    sink.respond(() => new Response("ok"));
    const failed = await deliveriesOf(td, a.accountId);
    const r = await runCli(["deliveries", "recover", "--account", "recover-cli", "--since", "24h", "--json", "--config", config]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ requeued: 2, more: false });
    // The daemon, another process, sends them on its next tick.
    await allSucceeded(td, a.accountId, failed.map((d) => d.id));
    expect(sink.received.map((x) => x.headers["webhook-id"])).toEqual(failed.map((d) => d.id));

    const human = await runCli(["deliveries", "recover", "--account", "recover-cli", "--since", "2026-01-01T00:00:00Z", "--until", "1h", "--config", config]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^Re-queued 0 failed deliveries of recover-cli queued since 2026-01-01T00:00:00\.000\+00:00 until \d{4}-\d\d-\d\dT[\d:.]+\+00:00\.\n$/);
  });

  it.each([
    [["--since", "yesterday"], "chainwatch: --since must be a duration ago such as 30m, 24h or 7d, or an RFC 3339 time (see --help)\n"],
    [["--since", "1h", "--until", "2h"], "chainwatch: --until must be after --since (see --help)\n"],
    [["--since", "2999-01-01T00:00:00Z"], "chainwatch: --since must not be in the future (see --help)\n"],
  ])("is a usage error (exit 2) for %p", async (flags, stderr) => {
    const r = await runCli(["deliveries", "recover", "--account", "recover-cli", ...flags, "--config", config]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(stderr);
  });

  test("an unknown account fails (exit 1)", async () => {
    const r = await runCli(["deliveries", "recover", "--account", "nobody", "--since", "1h", "--config", config]);
    expect(r.code).toBe(1);
    expect(r.stderr).toEndWith("chainwatch: no such account: nobody\n");
  });
});

describe("the cabinet's Recover button (docs/cabinet.md)", () => {
  let td: TestDaemon;
  let sink: WebhookSink;

  beforeAll(async () => {
    td = await startTestDaemon({ config: { delivery: { backoff_seconds: [0], max_attempts: 1, concurrency: 1 } } });
    sink = startWebhookSink();
  });
  afterAll(async () => {
    await td.stop();
    await sink.stop();
  });

  test("re-queues the failed deliveries of the chosen period, with the session's CSRF token", async () => {
    const a = await td.client({ credits: CREDITS });
    sink.respond(() => new Response("down", { status: 500 }));
    await watchAndHook(a, W, sink.url, { block: false });
    await ingest(td, block(1, [W, W, W]));
    const failed = await until(() => deliveriesOf(td, a.accountId), (ds) => ds.length === 3 && ds.every((d) => d.status === "failed"));
    sink.respond(() => new Response("ok"));
    const u = await signIn(td, a.accountId);

    const page = await (await u.get("/cabinet/deliveries")).text();
    expect(page).toContain('<form method="post" action="/cabinet/deliveries/recover" data-inline>');
    expect(page).toContain('<option value="24h" selected>24 hours ago</option>');
    const refused = await u.post("/cabinet/deliveries/recover", { since: "24h" }, { csrf: false });
    expect(refused.status).toBe(403);
    const odd = await u.post("/cabinet/deliveries/recover", { since: "5y" });
    expect(odd.status).toBe(400);
    expect(alertOf(await odd.text())).toBe("since must be one of 1h, 24h, 7d");
    expect((await deliveriesOf(td, a.accountId)).every((d) => d.status === "failed")).toBe(true);

    const done = await u.post("/cabinet/deliveries/recover", { since: "1h" });
    expect(done.status).toBe(200);
    expect(noticeOf(await done.text())).toBe("Re-queued 3 failed deliveries.");
    await allSucceeded(td, a.accountId, failed.map((d) => d.id));
    expect(sink.received.slice(-3).map((r) => r.headers["webhook-id"])).toEqual(failed.map((d) => d.id));
    const again = await u.post("/cabinet/deliveries/recover", { since: "7d" }, { accept: "application/json" });
    expect(await again.json()).toEqual({ message: "Re-queued 0 failed deliveries." });
  });
});
