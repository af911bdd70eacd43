import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { loadConfig } from "../../src/config/load.ts";
import { afterFailure } from "../../src/delivery/backoff.ts";
import { WAITING_RECHECK_MS } from "../../src/delivery/claim.ts";
import { readEndpointRow, recordEndpointAttempts, summarizeEndpointAttempts } from "../../src/webhooks/health-store.ts";
import { NoticeList, WebhookHealth } from "../../src/http/openapi/schemas.ts";
import type { Logger } from "../../src/lib/log.ts";
import { rfc3339 } from "../../src/lib/time.ts";
import { signIn } from "../cabinet/support.ts";
import { manualClock } from "../support/clock.ts";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import { openEngine, until } from "./fixtures.ts";

// A receiver that answers 500 for days, against a real daemon with the default retry schedule
// and a clock the test moves: the schedule is used once, the delivery fails with a notice, the
// endpoint is switched off after 120 hours of failures, events keep being stored, nothing is
// attempted while it is off, and switching it on again clears the run and sends what waited.

const HOUR = 3_600_000;
const W = "0x1111111111111111111111111111111111111111";
const X = "0x2222222222222222222222222222222222222222";

const defaults = (() => {
  const loaded = loadConfig(null);
  if (!loaded.ok) throw new Error(loaded.error);
  return loaded.config.delivery;
})();

type Json = Record<string, any>;

describe("the default retry schedule (docs/webhooks.md)", () => {
  test("spans 79.6 hours (3.3 days): ten waits, each used once by eleven attempts, then the delivery fails", () => {
    expect(defaults.max_attempts).toBe(11);
    expect(defaults.backoff_seconds).toEqual([5, 60, 300, 1800, 7200, 18000, 36000, 50400, 86400, 86400]);
    expect(defaults.disable_after_hours).toBe(120);
    const policy = { maxAttempts: defaults.max_attempts, backoffSeconds: defaults.backoff_seconds };
    const waits: number[] = [];
    for (let attempts = 1; attempts < 11; attempts++) {
      const next = afterFailure(attempts, policy, 0);
      expect(next.status).toBe("pending");
      waits.push(next.nextAttemptAt / 1000);
    }
    expect(waits).toEqual(defaults.backoff_seconds);
    expect(afterFailure(11, policy, 0)).toEqual({ status: "failed", nextAttemptAt: 0 });
    expect(waits.reduce((a, b) => a + b, 0)).toBe(286_565);
  });
});

describe("a batch of attempts comes to one outcome per endpoint", () => {
  const ok = (endpointId: string, at: number) => ({ endpointId, accountId: "acc_1", attempt: { url: "http://r/", startedAt: at, statusCode: 200, error: null } });
  const bad = (endpointId: string, at: number, code = 500) => ({
    endpointId,
    accountId: "acc_1",
    attempt: { url: "http://r/", startedAt: at, statusCode: code, error: `http ${code}` },
  });

  test.each([
    ["successes only: the last success, no failure", [ok("a", 1), ok("a", 5)], { lastSuccessAt: 5, failingSince: null, lastStatusCode: null, lastError: null }],
    ["failures only: the first failure starts the run, the last one's answer", [bad("a", 3, 502), bad("a", 2, 500)], { lastSuccessAt: null, failingSince: 2, lastStatusCode: 502, lastError: "http 502" }],
    ["a success ends the failures before it", [bad("a", 1), ok("a", 2)], { lastSuccessAt: 2, failingSince: null, lastStatusCode: null, lastError: null }],
    ["failures after the last success start a new run", [bad("a", 1), ok("a", 2), bad("a", 4, 503), bad("a", 3)], { lastSuccessAt: 2, failingSince: 3, lastStatusCode: 503, lastError: "http 503" }],
  ])("%s", (_name, attempts, expected) => {
    expect(summarizeEndpointAttempts(attempts)).toEqual([{ endpointId: "a", accountId: "acc_1", lastFailureUrl: expected.lastError === null ? null : "http://r/", ...expected }]);
  });

  test("one row per endpoint, in endpoint id order", () => {
    expect(summarizeEndpointAttempts([bad("c", 1), ok("a", 1), bad("b", 1), ok("c", 2)]).map((s) => s.endpointId)).toEqual(["a", "b", "c"]);
  });
});

describe("the stored run of failures, folded in batch by batch", () => {
  type Of = { id: string; endpointId: string };
  const ok = (a: Of, at: number) => ({ endpointId: a.endpointId, accountId: a.id, attempt: { url: "http://r/", startedAt: at, statusCode: 200, error: null } });
  const bad = (a: Of, at: number) => ({ endpointId: a.endpointId, accountId: a.id, attempt: { url: "http://r/", startedAt: at, statusCode: 500, error: "http 500" } });

  test("failures extend the run, a success ends it, failures after it start another; due once it lasted long enough", async () => {
    const engine = await openEngine();
    try {
      const db = engine.ctx.db;
      const a = await engine.account({ url: "http://r/" });
      const b = await engine.account({ url: "http://r/" });
      const row = async (of: Of) => {
        const r = await readEndpointRow(db, of.endpointId);
        return r && { failing_since: r.failing_since, last_success_at: r.last_success_at, last_status_code: r.last_status_code, last_error: r.last_error };
      };
      expect(await recordEndpointAttempts(db, [bad(a, 10)], 11, 100)).toEqual([]);
      await recordEndpointAttempts(db, [bad(a, 20), ok(b, 20)], 21, 100);
      expect(await row(a)).toEqual({ failing_since: 10, last_success_at: null, last_status_code: 500, last_error: "http 500" });
      expect(await row(b)).toEqual({ failing_since: null, last_success_at: 20, last_status_code: null, last_error: null });

      await recordEndpointAttempts(db, [ok(a, 30)], 31, 100);
      expect(await row(a)).toEqual({ failing_since: null, last_success_at: 30, last_status_code: null, last_error: null });

      await recordEndpointAttempts(db, [bad(a, 50), ok(a, 40)], 51, 100);
      expect(await row(a)).toEqual({ failing_since: 50, last_success_at: 40, last_status_code: 500, last_error: "http 500" });
      // 149 - 50 < 100: not yet; 150 - 50: due, with what it needs to be switched off and told.
      expect(await recordEndpointAttempts(db, [bad(a, 149)], 149, 100)).toEqual([]);
      expect(await recordEndpointAttempts(db, [bad(a, 150), bad(b, 150)], 150, 100)).toEqual([
        { endpointId: a.endpointId, accountId: a.id, url: "http://r/", failingSince: 50, lastStatusCode: 500, lastError: "http 500" },
      ]);
      // 0 = never.
      expect(await recordEndpointAttempts(db, [bad(a, 500)], 500, 0)).toEqual([]);
    } finally {
      await engine.close();
    }
  });
});

describe("an endpoint answering 500 for six days (docs/webhooks.md)", () => {
  const clock = manualClock();
  const t0 = clock.now();
  const warnings: { msg: string; fields?: Record<string, unknown> }[] = [];
  const log: Logger = { debug() {}, info() {}, warn: (msg, fields) => void warnings.push({ msg, fields }), error() {} };
  let d: TestDaemon;
  let client: TestClient;
  let sink: WebhookSink;
  let d1: string;
  let d2: string;
  let height = 100;

  const get = async (path: string) => {
    const res = await client.request("GET", path);
    return { status: res.status, body: (await res.json()) as Json };
  };
  const health = async () => {
    const res = await get("/v1/address-watch/webhook/health");
    expect(res.status).toBe(200);
    expect(Value.Check(WebhookHealth, res.body)).toBe(true);
    return res.body;
  };
  const deliveries = () => d.ctx.db.selectFrom("deliveries").selectAll().where("account_id", "=", client.accountId).orderBy("id").execute();
  const delivery = (id: string) => d.ctx.db.selectFrom("deliveries").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
  /** Wakes the loop and waits until the delivery has `attempts` attempts settled. */
  const attempted = async (id: string, attempts: number) => {
    d.daemon.deps.wakeDelivery();
    return until(
      () => delivery(id),
      (r) => r.attempts === attempts && r.lease_until === null,
    );
  };
  /** Ingests a block with one payment to the watched address; returns its delivery's id. */
  const payment = async () => {
    const h = height++;
    const res = await d.ingest({ network: "eth", height: h, hash: `0xb${h}`, parent_hash: `0xb${h - 1}`, transactions: [{ hash: `0xt${h}`, from: X, to: W, value: "1000" }] });
    expect(res.status).toBe(202);
    const rows = await deliveries();
    return rows[rows.length - 1].id;
  };

  beforeAll(async () => {
    sink = startWebhookSink();
    sink.respond(() => new Response("down", { status: 500 }));
    d = await startTestDaemon({
      clock,
      log,
      config: {
        billing: { enabled: false },
        rate_limit: { per_key_rps: 1000 },
        // The harness shortens the schedule; this file runs the shipped one.
        delivery: { backoff_seconds: defaults.backoff_seconds, max_attempts: defaults.max_attempts },
      },
    });
    client = await d.client();
    expect((await client.request("POST", "/v1/address-watch/addresses", { network_slug: "eth", address: W })).status).toBe(201);
    const put = await client.request("PUT", "/v1/address-watch/webhook", { url: sink.url, enabled: true, events: { block: false } });
    expect(put.status).toBe(200);
  });
  afterAll(async () => {
    await d.stop();
    await sink.stop();
  });

  test("a healthy endpoint before any attempt", async () => {
    expect(await health()).toEqual({ state: "healthy", failing_since: null, last_success_at: null, last_error: null, pending: 0, failed: 0, held_no_credits: 0 });
  });

  test("the first failure starts the run: failing since then, with the last error", async () => {
    d1 = await payment();
    await attempted(d1, 1);
    expect(await health()).toEqual({
      state: "failing",
      failing_since: t0 / 1000,
      last_success_at: null,
      last_error: { status_code: 500, error: "http 500" },
      pending: 1,
      failed: 0,
      held_no_credits: 0,
    });
  });

  test("the delivery is retried after each wait of the schedule once, then fails with a delivery_failed notice", async () => {
    for (const [i, wait] of defaults.backoff_seconds.entries()) {
      expect((await delivery(d1)).next_attempt_at).toBe(clock.now() + wait * 1000);
      clock.advance(wait * 1000);
      await attempted(d1, i + 2);
    }
    const failedAt = t0 + 286_565_000;
    expect(clock.now()).toBe(failedAt);
    expect(await delivery(d1)).toMatchObject({ status: "failed", attempts: 11, last_status_code: 500, last_error: "http 500", completed_at: failedAt });
    expect(sink.received.length).toBe(11);

    const notices = await get("/v1/account/notices");
    expect(notices.status).toBe(200);
    expect(Value.Check(NoticeList, notices.body)).toBe(true);
    expect(notices.body).toEqual({
      notices: [
        {
          id: expect.stringMatching(/^ntc_[0-9a-f]{24}$/),
          type: "delivery_failed",
          created_at: rfc3339(failedAt),
          message: `Delivery ${d1} (payment on eth) failed after 11 attempts; last error: http 500. It can be sent again.`,
          delivery_id: d1,
          resolved_at: null,
        },
      ],
      next_after: null,
    });
    expect(await health()).toMatchObject({ state: "failing", failing_since: t0 / 1000, pending: 0, failed: 1 });
  });

  test("119 hours of failures: still failing, still enabled", async () => {
    clock.set(t0 + 119 * HOUR);
    d2 = await payment();
    await attempted(d2, 1);
    expect(await health()).toEqual({
      state: "failing",
      failing_since: t0 / 1000,
      last_success_at: null,
      last_error: { status_code: 500, error: "http 500" },
      pending: 1,
      failed: 1,
      held_no_credits: 0,
    });
    expect((await get("/v1/address-watch/webhook")).body.enabled).toBe(true);
    const page = await (await (await signIn(d, client.accountId)).get("/cabinet/webhook")).text();
    const banner = /<div class="alert err" id="endpoint-health">(.*?)<\/div>/s.exec(page)?.[1] ?? "";
    expect(banner).toContain("Deliveries are failing");
    expect(banner).toContain(`datetime="${rfc3339(t0)}"`);
    expect(banner).toContain("<code>http 500</code>");
  });

  test("a failure 120 hours after the first disables the endpoint: health, webhook, notice, log line and metric say so", async () => {
    clock.set(t0 + 120 * HOUR);
    await attempted(d2, 2);
    const webhook = await until(
      () => get("/v1/address-watch/webhook"),
      (r) => r.body.enabled === false,
    );
    expect(webhook).toEqual({ status: 200, body: { url: sink.url, enabled: false, events: expect.objectContaining({ block: false, payment: true }), egress_ips: [], delivery: { max_rps: 0 } } });
    expect(await health()).toEqual({
      state: "disabled",
      failing_since: t0 / 1000,
      last_success_at: null,
      last_error: { status_code: 500, error: "http 500" },
      pending: 1,
      failed: 1,
      held_no_credits: 0,
    });

    const notices = await get("/v1/account/notices");
    expect(notices.body.notices.map((n: Json) => n.type)).toEqual(["endpoint_disabled", "delivery_failed"]);
    const port = new URL(sink.url).port;
    expect(notices.body.notices[0]).toEqual({
      id: expect.stringMatching(/^ntc_/),
      type: "endpoint_disabled",
      created_at: rfc3339(t0 + 120 * HOUR),
      message: `Webhook http://127.0.0.1:${port} disabled: every attempt failed since ${rfc3339(t0)} (last error: http 500). Events are still stored and listed; enable the webhook to resume deliveries.`,
      resolved_at: null,
    });

    expect(warnings.filter((w) => w.msg === "webhook endpoint disabled")).toEqual([
      {
        msg: "webhook endpoint disabled",
        fields: { account_id: client.accountId, url: `http://127.0.0.1:${port}`, failing_since: rfc3339(t0), error: "http 500", status_code: 500 },
      },
    ]);
    const metrics = await (await fetch(`${d.url}/metrics`)).text();
    expect(metrics).toContain("chainwatch_webhook_endpoints_disabled_total 1");
  });

  test("the cabinet's webhook page shows the endpoint disabled with the last error", async () => {
    const user = await signIn(d, client.accountId);
    const page = await (await user.get("/cabinet/webhook")).text();
    const banner = /<div class="alert err" id="endpoint-health">(.*?)<\/div>/s.exec(page)?.[1] ?? "";
    expect(banner).toContain("Webhook disabled");
    expect(banner).toContain(`datetime="${rfc3339(t0)}"`);
    expect(banner).toContain("<code>http 500</code>");
    const overview = await (await user.get("/cabinet/")).text();
    expect(overview).toContain("disabled: every attempt failed since");
  });

  test("while disabled: events are stored and listed, nothing is attempted, the queued delivery waits", async () => {
    const sent = sink.received.length;
    expect(sent).toBe(13);
    await payment();
    const events = await get("/v1/address-watch/events?type=payment");
    expect(events.status).toBe(200);
    expect(events.body.events.map((e: Json) => e.tx_hash)).toEqual(["0xt100", "0xt101", "0xt102"]);
    // No delivery for the new event: the webhook is off.
    expect((await deliveries()).map((r) => r.id)).toEqual([d1, d2]);

    clock.advance(24 * HOUR);
    d.daemon.deps.wakeDelivery();
    const waiting = await until(
      () => delivery(d2),
      (r) => r.next_attempt_at === clock.now() + WAITING_RECHECK_MS,
    );
    expect(waiting).toMatchObject({ status: "pending", attempts: 2, lease_until: null });
    expect(sink.received.length).toBe(sent);
    expect(await health()).toMatchObject({ state: "disabled", pending: 1, failed: 1 });
  });

  test("PUT enabled: true clears the run; what waited goes out and the endpoint is healthy", async () => {
    sink.respond(() => new Response("ok"));
    const put = await client.request("PUT", "/v1/address-watch/webhook", { url: sink.url, enabled: true });
    expect(put.status).toBe(200);
    expect(await put.json()).toEqual({ url: sink.url, enabled: true, events: expect.objectContaining({ block: false }), egress_ips: [], delivery: { max_rps: 0 } });
    expect(await health()).toEqual({ state: "healthy", failing_since: null, last_success_at: null, last_error: null, pending: 1, failed: 1, held_no_credits: 0 });

    await attempted(d2, 3);
    expect(await delivery(d2)).toMatchObject({ status: "succeeded", last_status_code: 200 });
    expect(sink.received.length).toBe(14);
    expect(sink.received[12].headers["x-webhook-id"]).toBe(d2);
    expect(await health()).toEqual({
      state: "healthy",
      failing_since: null,
      last_success_at: Math.floor(clock.now() / 1000),
      last_error: null,
      pending: 0,
      failed: 1,
      held_no_credits: 0,
    });
    const user = await signIn(d, client.accountId);
    expect(await (await user.get("/cabinet/webhook")).text()).not.toContain('id="endpoint-health"');
  });

  test("switching it on resolved the endpoint_disabled notice: listed with resolved_at, gone from the cabinet's overview", async () => {
    const notices = (await get("/v1/account/notices")).body.notices as Json[];
    expect(Value.Check(NoticeList, { notices, next_after: null })).toBe(true);
    expect(notices.map((n) => [n.type, n.resolved_at])).toEqual([
      ["endpoint_disabled", rfc3339(t0 + 144 * HOUR)],
      // d1 is still failed: its notice stands until it is re-queued.
      ["delivery_failed", null],
    ]);
    const overview = await (await (await signIn(d, client.accountId)).get("/cabinet/")).text();
    expect(overview).not.toContain("disabled: every attempt failed since");
    expect(overview).toContain(`Delivery ${d1}`);
  });

  test("re-queuing the failed delivery resolves its delivery_failed notice", async () => {
    const user = await signIn(d, client.accountId);
    const recovered = await client.request("POST", "/v1/address-watch/webhook/recover", { since: Math.floor(t0 / 1000) - 60 });
    expect(await recovered.json()).toEqual({ requeued: 1, more: false });
    const notices = (await get("/v1/account/notices")).body.notices as Json[];
    expect(notices.map((n) => [n.type, n.resolved_at])).toEqual([
      ["endpoint_disabled", rfc3339(t0 + 144 * HOUR)],
      ["delivery_failed", rfc3339(clock.now())],
    ]);
    const overview = await (await user.get("/cabinet/")).text();
    expect(overview).not.toContain(`Delivery ${d1}`);
    expect(overview).toContain("Nothing to report.");
  });
});
