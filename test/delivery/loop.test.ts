import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { WAITING_RECHECK_MS } from "../../src/delivery/claim.ts";
import { updateWebhook } from "../../src/webhooks/default-endpoint.ts";
import { manualClock } from "../support/clock.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import { type Engine, expectedXSignature, openEngine, verifyStandardWebhook } from "./fixtures.ts";
import { setDefaultEndpoint } from "../support/endpoints.ts";

let sink: WebhookSink;
let engine: Engine | undefined;

beforeEach(() => {
  sink = startWebhookSink();
});
afterEach(async () => {
  await engine?.close();
  engine = undefined;
  await sink.stop();
});

/** Holds every answer of the sink open until the test releases it; tracks the most open at once. */
function holdAnswers() {
  const waiting: (() => void)[] = [];
  let open = 0;
  let peak = 0;
  let released = false;
  sink.respond(async () => {
    peak = Math.max(peak, ++open);
    if (!released) await new Promise<void>((resolve) => waiting.push(resolve));
    open--;
    return new Response("ok");
  });
  return {
    get peak() {
      return peak;
    },
    releaseOne: () => waiting.shift()?.(),
    releaseAll: () => {
      released = true;
      for (const release of waiting.splice(0)) release();
    },
  };
}

// A receiver gets 10 s to answer: a loaded machine can hold a local answer past a short timeout_ms,
// which would turn a send these tests expect to succeed into a timeout and a retry. The timeout test
// sets its own short one.
const fast = { delivery: { backoff_seconds: [0], max_attempts: 3, timeout_ms: 10_000 }, billing: { enabled: false } };

describe("the delivery loop against a real receiver (docs/webhooks.md)", () => {
  test("POSTs the stored body with both signatures valid for the account's secret", async () => {
    engine = await openEngine({ config: fast });
    const acct = await engine.account({ url: sink.url });
    const body = '{"id":"evt_1","type":"payment","amount":"1.5"}';
    const id = await engine.queue(acct.id, { body });
    await engine.run();

    expect(sink.received.length).toBe(1);
    const r = sink.received[0];
    expect(r.method).toBe("POST");
    expect(r.body).toBe(body);
    expect(r.headers["content-type"]).toBe("application/json");
    expect(r.headers["user-agent"]).toBe("chainwatch/0.1.0");
    expect(r.headers["x-webhook-id"]).toBe(id);
    expect(r.headers["webhook-id"]).toBe(id);
    expect(r.headers["webhook-timestamp"]).toBe(r.headers["x-timestamp"]);
    expect(Math.abs(Number(r.headers["x-timestamp"]) - Date.now() / 1000)).toBeLessThan(60);
    expect(r.headers["x-signature"]).toBe(expectedXSignature(acct.secret, r.headers["x-timestamp"], body));
    expect(verifyStandardWebhook(acct.secret, r)).toEqual(JSON.parse(body));
    expect(r.headers["x-webhook-test"]).toBeUndefined();
    expect(await engine.delivery(id)).toMatchObject({ status: "succeeded", attempts: 1, last_status_code: 200, last_error: null, lease_until: null });
  });

  test("retries with the same id and identical bytes, each attempt signed afresh", async () => {
    engine = await openEngine({ config: fast });
    const acct = await engine.account({ url: sink.url });
    sink.respond((_req, i) => new Response(i < 2 ? "not yet" : "ok", { status: i < 2 ? 503 : 200 }));
    const body = '{"type":"payout","amount":"0.000001","note":"ünïcödé"}';
    const id = await engine.queue(acct.id, { eventType: "payout", body });
    await engine.run();

    expect(sink.received.length).toBe(3);
    for (const r of sink.received) {
      expect(r.body).toBe(body);
      expect(r.headers["x-webhook-id"]).toBe(id);
      expect(r.headers["webhook-id"]).toBe(id);
      expect(r.headers["x-signature"]).toBe(expectedXSignature(acct.secret, r.headers["x-timestamp"], body));
      verifyStandardWebhook(acct.secret, r);
    }
    expect(await engine.delivery(id)).toMatchObject({ status: "succeeded", attempts: 3, last_status_code: 200 });
    expect((await engine.attempts(id)).map((a) => [a.attempt, a.status_code, a.error, a.response_snippet])).toEqual([
      [1, 503, "http 503", "not yet"],
      [2, 503, "http 503", "not yet"],
      [3, 200, null, "ok"],
    ]);
    const metrics = engine.metrics.render();
    expect(metrics).toContain('chainwatch_delivery_attempts_total{outcome="retry"} 2');
    expect(metrics).toContain('chainwatch_delivery_attempts_total{outcome="succeeded"} 1');
  });

  test("waits backoff_seconds between attempts and fails after max_attempts", async () => {
    const clock = manualClock();
    engine = await openEngine({ clock, config: { ...fast, delivery: { ...fast.delivery, backoff_seconds: [5, 30] } } });
    const acct = await engine.account({ url: sink.url });
    sink.respond(() => new Response("down", { status: 500 }));
    const t0 = clock.now();
    const id = await engine.queue(acct.id);

    await engine.run();
    expect(await engine.delivery(id)).toMatchObject({ status: "pending", attempts: 1, next_attempt_at: t0 + 5_000, last_status_code: 500 });
    clock.advance(4_999);
    await engine.run();
    expect(sink.received.length).toBe(1);

    clock.advance(1);
    await engine.run();
    expect(await engine.delivery(id)).toMatchObject({ status: "pending", attempts: 2, next_attempt_at: t0 + 35_000 });
    clock.advance(30_000);
    await engine.run();
    expect(await engine.delivery(id)).toMatchObject({ status: "failed", attempts: 3, last_error: "http 500", completed_at: t0 + 35_000 });
    clock.advance(3_600_000);
    await engine.run();
    expect(sink.received.length).toBe(3);
    expect(engine.metrics.render()).toContain('chainwatch_delivery_attempts_total{outcome="failed"} 1');
  });

  test("a 3xx answer is a failed attempt and the redirect is not followed", async () => {
    engine = await openEngine({ config: fast });
    const acct = await engine.account({ url: sink.url });
    sink.respond(() => new Response(null, { status: 302, headers: { Location: sink.url.replace("/hook", "/elsewhere") } }));
    const id = await engine.queue(acct.id);
    await engine.run();
    expect(sink.received.map((r) => r.path)).toEqual(["/hook", "/hook", "/hook"]);
    expect(await engine.delivery(id)).toMatchObject({ status: "failed", attempts: 3, last_status_code: 302, last_error: "redirect not followed" });
  });

  test("a hanging receiver times out after timeout_ms and the attempt says so", async () => {
    engine = await openEngine({ config: { ...fast, delivery: { backoff_seconds: [0], max_attempts: 1, timeout_ms: 300 } } });
    const acct = await engine.account({ url: sink.url });
    sink.respond(() => new Promise<Response>(() => {}));
    const id = await engine.queue(acct.id);
    await engine.run();
    expect(await engine.delivery(id)).toMatchObject({ status: "failed", attempts: 1, last_status_code: null, last_error: "timeout" });
    const [a] = await engine.attempts(id);
    expect(a).toMatchObject({ attempt: 1, url: sink.url, status_code: null, error: "timeout", response_snippet: null });
    expect(a.duration_ms).toBeGreaterThanOrEqual(250);
  });

  test("an address-watch delivery to a disabled webhook waits, pending and unattempted, and goes out once it is enabled", async () => {
    const clock = manualClock();
    engine = await openEngine({ clock, config: fast });
    const acct = await engine.account({ url: sink.url, enabled: false });
    const id = await engine.queue(acct.id);
    await engine.run();
    expect(sink.received.length).toBe(0);
    // Out of the claims for an hour, then looked at again: still no attempt.
    expect(await engine.delivery(id)).toMatchObject({ status: "pending", attempts: 0, next_attempt_at: clock.now() + WAITING_RECHECK_MS, last_error: null });
    clock.advance(WAITING_RECHECK_MS);
    await engine.run();
    expect(await engine.delivery(id)).toMatchObject({ status: "pending", attempts: 0, next_attempt_at: clock.now() + WAITING_RECHECK_MS });
    expect(await engine.attempts(id)).toEqual([]);

    const put = await updateWebhook({ ...engine.ctx, resolveHost: async () => ["127.0.0.1"] }, acct.id, { url: sink.url, enabled: true });
    expect(put.ok).toBe(true);
    await engine.run();
    expect(sink.received.length).toBe(1);
    expect(await engine.delivery(id)).toMatchObject({ status: "succeeded", attempts: 1 });
  });

  test("the target is read when the delivery is sent, not when it was queued", async () => {
    engine = await openEngine({ config: fast });
    const acct = await engine.account({ url: "http://127.0.0.1:1/old" });
    const id = await engine.queue(acct.id);
    await setDefaultEndpoint(engine.ctx.db, acct.id, { url: sink.url });
    await engine.run();
    expect(sink.received.length).toBe(1);
    expect((await engine.attempts(id))[0].url).toBe(sink.url);
  });

  test("refuses a target that resolves to a private address at delivery time", async () => {
    const resolved: string[] = [];
    engine = await openEngine({
      config: { ...fast, delivery: { ...fast.delivery, allow_private_targets: false, max_attempts: 1 } },
      resolveHost: async (host) => (resolved.push(host), ["10.1.2.3"]),
    });
    const url = sink.url.replace("127.0.0.1", "rebound.example.test");
    const acct = await engine.account({ url });
    const id = await engine.queue(acct.id);
    await engine.run();
    expect(resolved).toEqual(["rebound.example.test"]);
    expect(sink.received.length).toBe(0);
    expect(await engine.delivery(id)).toMatchObject({ status: "failed", last_error: "private target", last_status_code: null });
    expect((await engine.attempts(id))[0]).toMatchObject({ url, error: "private target" });
  });

  test("keeps at most `concurrency` requests in flight", async () => {
    engine = await openEngine({ config: { ...fast, delivery: { ...fast.delivery, concurrency: 3, timeout_ms: 10_000 } } });
    const acct = await engine.account({ url: sink.url });
    const held = holdAnswers();
    for (let i = 0; i < 12; i++) await engine.queue(acct.id);
    engine.loop.wake();
    // Three arrive and stay open; from then on each answer lets exactly one more in.
    await sink.waitFor(3);
    for (let n = 4; n <= 12; n++) {
      held.releaseOne();
      await sink.waitFor(n);
    }
    held.releaseAll();
    await engine.loop.idle();
    expect(sink.received.length).toBe(12);
    expect(held.peak).toBe(3);
  });

  test("a slow receiver answer holds up only its own slot: the others keep sending", async () => {
    engine = await openEngine({ config: { ...fast, delivery: { ...fast.delivery, concurrency: 2 } } });
    const acct = await engine.account({ url: sink.url });
    let releaseSlow = () => {};
    const slow = new Promise<void>((resolve) => {
      releaseSlow = resolve;
    });
    sink.respond(async (_req, i) => {
      if (i === 0) await slow;
      return new Response("ok");
    });
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push(await engine.queue(acct.id));
    engine.loop.wake();
    // All seven others arrive through the second slot while the first request is still open.
    await sink.waitFor(8);
    releaseSlow();
    await engine.loop.idle();
    expect(sink.received.length).toBe(8);
    for (const id of ids) expect((await engine.delivery(id)).status).toBe("succeeded");
  });

  test("stop gives back the leases of rows claimed but not yet sent", async () => {
    engine = await openEngine({ config: { ...fast, delivery: { ...fast.delivery, concurrency: 1, timeout_ms: 10_000 } } });
    const acct = await engine.account({ url: sink.url });
    const held = holdAnswers();
    const ids = [await engine.queue(acct.id), await engine.queue(acct.id), await engine.queue(acct.id)];
    engine.loop.wake();
    await sink.waitFor(1);
    // The first send is held open until stop() has begun, so the other two are claimed but unsent.
    const stopped = engine.loop.stop();
    held.releaseAll();
    await stopped;
    expect(sink.received.length).toBe(1);
    expect(await engine.delivery(ids[0])).toMatchObject({ status: "succeeded", lease_until: null });
    for (const id of ids.slice(1)) expect(await engine.delivery(id)).toMatchObject({ status: "pending", attempts: 0, lease_until: null });
  });

  test("a wake-up during a pass is not lost: work queued meanwhile goes out in the same run", async () => {
    engine = await openEngine({ config: fast });
    const acct = await engine.account({ url: sink.url });
    let queuedLate: Promise<string> | undefined;
    sink.respond((_req, i) => {
      if (i === 0) {
        queuedLate = engine!.queue(acct.id).then((id) => (engine!.loop.wake(), id));
      }
      return new Response("ok");
    });
    await engine.queue(acct.id);
    await engine.run();
    const late = await queuedLate!;
    await engine.loop.idle();
    expect(sink.received.length).toBe(2);
    expect((await engine.delivery(late)).status).toBe("succeeded");
  });

  test("a row leased by a process that died is sent again once its lease has run out", async () => {
    const clock = manualClock();
    engine = await openEngine({ clock, config: { ...fast, delivery: { ...fast.delivery, lease_seconds: 30 } } });
    const acct = await engine.account({ url: sink.url });
    const id = await engine.queue(acct.id);
    // What a crashed sender leaves behind: pending, leased, no attempt recorded.
    await engine.ctx.db.updateTable("deliveries").set({ lease_until: clock.now() + 30_000 }).where("id", "=", id).execute();
    await engine.run();
    expect(sink.received.length).toBe(0);
    clock.advance(30_001);
    await engine.run();
    expect(sink.received.length).toBe(1);
    expect(await engine.delivery(id)).toMatchObject({ status: "succeeded", attempts: 1 });
  });

  test("stop lets the delivery in flight finish and record its outcome", async () => {
    engine = await openEngine({ config: { ...fast, delivery: { ...fast.delivery, timeout_ms: 10_000, shutdown_grace_ms: 10_000 } } });
    const acct = await engine.account({ url: sink.url });
    const held = holdAnswers();
    const id = await engine.queue(acct.id);
    engine.loop.wake();
    await sink.waitFor(1);
    // Answered only once stop() has begun: stop() must wait for it.
    const stopped = engine.loop.stop();
    held.releaseAll();
    await stopped;
    expect(await engine.delivery(id)).toMatchObject({ status: "succeeded", attempts: 1, lease_until: null });
  });

  test("stop gives up on a receiver that never answers after shutdown_grace_ms, leaving the row leased", async () => {
    // timeout_ms is far beyond the test's own timeout: only the grace bound can end stop().
    engine = await openEngine({ config: { ...fast, delivery: { ...fast.delivery, timeout_ms: 120_000, lease_seconds: 300, shutdown_grace_ms: 200 } } });
    const acct = await engine.account({ url: sink.url });
    sink.respond(() => new Promise<Response>(() => {}));
    const id = await engine.queue(acct.id);
    engine.loop.wake();
    await sink.waitFor(1);
    await engine.loop.stop();
    const row = await engine.delivery(id);
    expect(row).toMatchObject({ status: "pending", attempts: 0 });
    expect(row?.lease_until).not.toBeNull();
  });
});
