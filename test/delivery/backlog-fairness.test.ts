import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import { block, ingest, watchAndHook } from "./recovery-support.ts";
import { failedBacklog, sequenceOf } from "./throttle-support.ts";
import { until } from "../support/poll.ts";

// docs/webhooks.md: a backlog with no rate limit (a recovery after an outage) goes out as fast
// as the loop and the receiver allow, yet another account's new webhooks do not wait behind it.
// An ordering check: the new webhook arrives while most of the older backlog is still to come.

const BACKLOG = 2000;
const W = "0x4444444444444444444444444444444444444444";

describe("an unlimited backlog draining while another account's events come in", () => {
  let td: TestDaemon;
  let slow: WebhookSink;
  let other: WebhookSink;
  let a: TestClient;
  let b: TestClient;

  beforeAll(async () => {
    // Few sends at once and a receiver that takes its time: the backlog drains for a few seconds.
    td = await startTestDaemon({ config: { rate_limit: { per_key_rps: 1000 }, delivery: { concurrency: 4 } } });
    slow = startWebhookSink();
    slow.respond(async () => {
      await Bun.sleep(5);
      return new Response("ok");
    });
    other = startWebhookSink();
    a = await td.client({ credits: 1_000_000_000 });
    b = await td.client({ credits: 1_000_000_000 });
    const put = await a.request("PUT", "/v1/address-watch/webhook", { url: slow.url, enabled: true });
    expect(put.status).toBe(200);
    await watchAndHook(b, W, other.url, { block: false });
    const queuedAt = Date.now() - 3_600_000;
    await failedBacklog(td.ctx.db, a.accountId, BACKLOG, queuedAt);
    const recovered = await a.request("POST", "/v1/address-watch/webhook/recover", { since: Math.floor(queuedAt / 1000) });
    expect(await recovered.json()).toEqual({ requeued: BACKLOG, more: false });
    await slow.waitFor(100);
    await ingest(td, block(1, [W]));
  }, 25_000);

  afterAll(async () => {
    await td.stop();
    await slow.stop();
    await other.stop();
  });

  test("the other account's payment is delivered before the older backlog has drained", async () => {
    const [payment] = await other.waitFor(1);
    const backlogBefore = slow.received.filter((r) => r.at <= payment.at).length;
    expect(backlogBefore).toBeLessThan(BACKLOG / 2);
  });

  // Bounded by completion, not speed: 2,000 sends through four at a time took 3–4 s alone and over
  // 30 s on a loaded PostgreSQL run, so the wait is generous.
  test("the backlog still arrives whole, each webhook once", async () => {
    await until(async () => slow.received.length, (n) => n >= BACKLOG, 80_000);
    const seen = sequenceOf(slow.received).sort((x, y) => x - y);
    expect(seen).toEqual(Array.from({ length: BACKLOG }, (_, i) => i));
  }, 90_000);
});
