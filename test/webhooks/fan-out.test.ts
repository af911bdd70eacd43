import { afterAll, beforeAll, describe, expect, setSystemTime, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { verifyWebhook } from "../../src/client/webhooks.ts";
import type { Logger } from "../../src/lib/log.ts";
import { manualClock } from "../support/clock.ts";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { until } from "../support/poll.ts";
import { type Received, startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import { deliveriesWithBodies } from "../../src/delivery/outbox.ts";

// Fan-out (docs/webhooks.md): two endpoints of one account, each a real receiver. One answers 500
// for an hour of the daemon's clock; the other gets every event at once and in order, with its own
// delivery id, signed with its own secret — also across a rotation of that secret — while the
// failing one's retries, health and switch-off are its own.

const MINUTE = 60_000;
const W = "0x1111111111111111111111111111111111111111";
const X = "0x2222222222222222222222222222222222222222";
type Json = Record<string, any>;

describe("an account with two endpoints, one down for an hour", () => {
  const clock = manualClock();
  const t0 = clock.now();
  const warnings: string[] = [];
  const log: Logger = { debug() {}, info() {}, warn: (msg) => void warnings.push(msg), error() {} };
  let d: TestDaemon;
  let c: TestClient;
  let down: WebhookSink;
  let up: WebhookSink;
  let downId: string;
  let upId: string;
  let upSecret: string;
  let rotatedSecret: string;
  let rotatedAt: number;
  let height = 100;
  const sent: string[] = [];

  /** Ingests a block paying W once at the clock's time; returns its transaction hash. */
  const pay = async () => {
    const h = height++;
    const tx = `0xt${h}`;
    const res = await d.ingest({ network: "eth", height: h, hash: `0xb${h}`, parent_hash: `0xb${h - 1}`, transactions: [{ hash: tx, from: X, to: W, value: "1000" }] });
    expect(res.status).toBe(202);
    sent.push(tx);
    return tx;
  };
  const txOf = (r: Received) => (JSON.parse(r.body) as Json).tx_hash as string;
  const health = async (id: string) => (await (await c.request("GET", `/v1/webhooks/endpoints/${id}/health`)).json()) as Json;
  const deliveriesTo = (endpointId: string) => deliveriesWithBodies(d.ctx.db).where("endpoint_id", "=", endpointId).orderBy("id").execute();

  beforeAll(async () => {
    down = startWebhookSink();
    down.respond(() => new Response("down", { status: 500 }));
    up = startWebhookSink();
    d = await startTestDaemon({
      clock,
      log,
      config: {
        rate_limit: { per_key_rps: 1000 },
        delivery: { backoff_seconds: [60, 300, 600], max_attempts: 50, disable_after_hours: 1 },
      },
    });
    c = await d.client({ credits: 1_000_000 });
    expect((await c.request("POST", "/v1/address-watch/addresses", { network_slug: "eth", address: W })).status).toBe(201);
    // The default endpoint (the address-watch webhook) is the one that fails.
    expect((await c.request("PUT", "/v1/address-watch/webhook", { url: down.url, enabled: true, events: { block: false } })).status).toBe(200);
    downId = ((await (await c.request("GET", "/v1/webhooks/endpoints")).json()) as Json).endpoints[0].endpoint_id;
    const made = (await (await c.request("POST", "/v1/webhooks/endpoints", { url: up.url, events: { block: false } })).json()) as Json;
    upId = made.endpoint_id;
    upSecret = made.secret;
  });
  afterAll(async () => {
    await d.stop();
    await down.stop();
    await up.stop();
  });

  test("each event goes to both endpoints as a delivery of its own, the same body under two ids; the healthy one gets each at once, in order", async () => {
    for (let minute = 0; minute < 60; minute += 5) {
      if (minute > 0) clock.advance(5 * MINUTE);
      const tx = await pay();
      d.daemon.deps.wakeDelivery();
      // On time: it arrives at the clock time it was stored, before the clock moves on.
      const got = await up.waitFor(sent.length);
      expect(txOf(got[got.length - 1])).toBe(tx);
      expect(Number(got[got.length - 1].headers["webhook-timestamp"])).toBe(Math.floor(clock.now() / 1000));
    }
    expect(up.received.map(txOf)).toEqual(sent);
    // Received is not yet recorded: the last outcome commits just after the receiver answered.
    const toUp = await until(
      () => deliveriesTo(upId),
      (rows) => rows.every((r) => r.status === "succeeded"),
    );
    // The failing endpoint's deliveries each tried (and retried on its own schedule) meanwhile.
    const toDown = await until(
      () => deliveriesTo(downId),
      (rows) => rows.length === 12 && rows.every((r) => r.attempts >= 1 && r.lease_until === null),
    );
    expect(toUp.length).toBe(12);
    expect(toDown.length).toBe(12);
    expect(toUp.map((r) => r.body)).toEqual(toDown.map((r) => r.body));
    expect(new Set([...toUp, ...toDown].map((r) => r.id)).size).toBe(24);
    expect(toUp.every((r) => r.status === "succeeded" && r.attempts === 1)).toBe(true);
    expect(up.received.map((r) => r.headers["webhook-id"])).toEqual(toUp.map((r) => r.id));
    // The failing endpoint's own retries: every one of its deliveries tried, none succeeded.
    expect(toDown.every((r) => r.status === "pending" && r.attempts >= 1)).toBe(true);
  });

  test("the failing endpoint's run is its own: failing since the first attempt, while the other is healthy", async () => {
    expect(await health(downId)).toMatchObject({ state: "failing", failing_since: t0 / 1000, last_error: { status_code: 500, error: "http 500" }, pending: 12 });
    expect(await health(upId)).toEqual({
      state: "healthy",
      failing_since: null,
      last_success_at: Math.floor((t0 + 55 * MINUTE) / 1000),
      last_error: null,
      pending: 0,
      failed: 0,
      held_no_credits: 0,
    });
  });

  test("an hour of failures switches the failing endpoint off, and only it: new events then go to the other alone", async () => {
    clock.set(t0 + 60 * MINUTE);
    d.daemon.deps.wakeDelivery();
    await until(
      () => health(downId),
      (h) => h.state === "disabled",
    );
    expect(warnings.filter((w) => w === "webhook endpoint disabled").length).toBe(1);
    const endpoints = ((await (await c.request("GET", "/v1/webhooks/endpoints")).json()) as Json).endpoints as Json[];
    expect(endpoints.map((e) => [e.endpoint_id, e.enabled])).toEqual([
      [downId, false],
      [upId, true],
    ]);
    const notices = ((await (await c.request("GET", "/v1/account/notices")).json()) as Json).notices as Json[];
    expect(notices.map((n) => n.type)).toEqual(["endpoint_disabled"]);

    const downBefore = (await deliveriesTo(downId)).length;
    await pay();
    d.daemon.deps.wakeDelivery();
    await up.waitFor(sent.length);
    expect(up.received.map(txOf)).toEqual(sent);
    expect((await deliveriesTo(downId)).length).toBe(downBefore);
    expect(await health(upId)).toMatchObject({ state: "healthy" });
  });

  test("a rotated secret of one endpoint: its next deliveries carry both signatures; the other's secret is untouched", async () => {
    const res = await c.request("POST", `/v1/webhooks/endpoints/${upId}/secret/rotate`, { grace_seconds: 3600 });
    expect(res.status).toBe(200);
    const rotated = (await res.json()) as Json;
    expect(rotated).toEqual({ endpoint_id: upId, secret: expect.stringMatching(/^whsec_/), previous_expires_at: expect.any(String) });
    rotatedSecret = rotated.secret;
    rotatedAt = up.received.length;
    clock.advance(MINUTE);
    await pay();
    d.daemon.deps.wakeDelivery();
    const got = await up.waitFor(sent.length);
    expect(got[got.length - 1].headers["webhook-signature"].split(" ").length).toBe(2);
  });

  test("every request each receiver got verifies with that endpoint's secrets, by standardwebhooks and by the SDK, and not with the other's", async () => {
    const downSecret = c.webhookSecret;
    const check = async (r: Received, secret: string) => {
      const at = Number(r.headers["webhook-timestamp"]) * 1000;
      // The reference verifier judges the timestamp by the system clock: set it to the daemon's for the call.
      setSystemTime(new Date(at));
      try {
        const headers = { "webhook-id": r.headers["webhook-id"], "webhook-timestamp": r.headers["webhook-timestamp"], "webhook-signature": r.headers["webhook-signature"] };
        expect(new Webhook(secret).verify(r.body, headers)).toEqual(JSON.parse(r.body));
      } finally {
        setSystemTime();
      }
      expect(await verifyWebhook(r.headers, r.body, secret, { now: new Date(Number(r.headers["webhook-timestamp"]) * 1000) })).toEqual(JSON.parse(r.body));
    };
    const refuses = async (r: Received, secret: string) => {
      await expect(verifyWebhook(r.headers, r.body, secret, { now: new Date(Number(r.headers["webhook-timestamp"]) * 1000) })).rejects.toThrow();
    };
    expect(down.received.length).toBeGreaterThanOrEqual(12);
    for (const r of down.received) {
      await check(r, downSecret);
      await refuses(r, upSecret);
    }
    for (const [i, r] of up.received.entries()) {
      await check(r, upSecret);
      if (i >= rotatedAt) await check(r, rotatedSecret);
      else await refuses(r, rotatedSecret);
      await refuses(r, downSecret);
    }
  });
});
