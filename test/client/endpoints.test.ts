import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ChainwatchError, createClient, verifyWebhook } from "chainwatch/client";
import { manualClock } from "../support/clock.ts";
import { startTestDaemon, type TestDaemon } from "../support/harness.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";

// The SDK's webhook endpoint methods against a real daemon (docs/sdk.md), through the package's
// own export; the daemon's clock is held still and the SDK signs with it.
const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);
const clock = manualClock(NOW);
let td: TestDaemon;
let sink: WebhookSink;

beforeAll(async () => {
  sink = startWebhookSink();
  td = await startTestDaemon({ clock, config: { rate_limit: { per_key_rps: 1000 } } });
});
afterAll(async () => {
  await td.stop();
  await sink.stop();
});

describe("the webhook endpoint methods", () => {
  test("create, list, get, update, test, rotate, health, recover, replay and delete an endpoint", async () => {
    const c = await td.client();
    const client = createClient({ baseUrl: td.url, apiKey: c.apiKey, secret: c.secret, now: clock.now });
    const [defaultEndpoint] = (await client.listWebhookEndpoints()).endpoints;
    expect(defaultEndpoint).toMatchObject({ url: null, enabled: false });

    const made = await client.createWebhookEndpoint({ url: sink.url, description: "audit", events: { payment_order: false } });
    // Read before any toMatchObject: bun:test's writes its asymmetric matchers into the object it checks.
    const secret = made.secret;
    expect(secret).toMatch(/^whsec_/);
    expect(made).toMatchObject({ url: sink.url, enabled: true, description: "audit" });
    const id = made.endpoint_id;
    const { secret: _shownOnce, ...shown } = made;
    expect(await client.getWebhookEndpoint(id)).toEqual(shown);
    expect((await client.listWebhookEndpoints()).endpoints).toEqual([defaultEndpoint, shown]);

    const updated = await client.updateWebhookEndpoint(id, { events: { block: false }, delivery: { max_rps: 3 } });
    expect(updated).toEqual({ ...shown, events: { ...shown.events, block: false }, delivery: { max_rps: 3 } });

    const queued = await client.testWebhookEndpoint(id, { event: "payment_order", network: "eth" });
    expect(queued).toEqual({ queued: true, delivery_id: expect.stringMatching(/^dlv_/) });
    const [received] = await sink.waitFor(1);
    expect(received.headers["webhook-id"]).toBe(queued.delivery_id);
    expect(await verifyWebhook(received.headers, received.body, secret, { now: new Date(NOW) })).toMatchObject({ type: "payment_order", event: "paid" });

    const rotated = await client.rotateWebhookEndpointSecret(id, { grace_seconds: 60 });
    expect(rotated).toEqual({ endpoint_id: id, secret: expect.stringMatching(/^whsec_/), previous_expires_at: "2026-11-21T12:01:00.000+00:00" });
    expect(rotated.secret).not.toBe(secret);

    expect(await client.getWebhookEndpointHealth(id)).toMatchObject({ state: "healthy", pending: 0, failed: 0, held_no_credits: 0 });
    const since = Math.floor(NOW / 1000) - 3600;
    expect(await client.recoverWebhookEndpoint(id, { since })).toEqual({ requeued: 0, more: false });
    expect(await client.replayWebhookEndpoint(id, { since })).toEqual({ queued: 0, next_after: null });

    expect(await client.deleteWebhookEndpoint(id)).toEqual({ endpoint_id: id, deleted: true });
    const gone = await client.getWebhookEndpoint(id).then(
      () => null,
      (e: unknown) => e,
    );
    expect(gone).toBeInstanceOf(ChainwatchError);
    expect({ status: (gone as ChainwatchError).status, error: (gone as ChainwatchError).error }).toEqual({ status: 404, error: "Endpoint not found." });
  });
});
