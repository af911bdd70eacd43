import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import { expectedXSignature, until, verifyStandardWebhook } from "./fixtures.ts";
import { setDefaultEndpoint } from "../support/endpoints.ts";

let td: TestDaemon;
let sink: WebhookSink;
let ingested = 0;

/**
 * The daemon of these tests, giving a receiver `timeoutMs` to answer: 10 s unless told, as on a
 * loaded machine a short timeout turns a send held only for a moment (the first test's) into a
 * timeout; the timeout test starts one of its own with a short one.
 */
const startDaemon = (timeoutMs = 10_000) =>
  startTestDaemon({
    config: {
      rate_limit: { per_key_rps: 1000 },
      delivery: { backoff_seconds: [3600], max_attempts: 2, timeout_ms: timeoutMs },
      billing: { enabled: true, rates: { production: { address_activity: 50, payments: 100 } } },
    },
  });

beforeAll(async () => {
  sink = startWebhookSink();
  td = await startDaemon();
});
afterAll(async () => {
  await td.stop();
  await sink.stop();
});

async function clientWithWebhook(o: { url?: string | null; enabled?: boolean; paymentsUrl?: string | null; credits?: number; on?: TestDaemon } = {}) {
  const on = o.on ?? td;
  const c = await on.client({ credits: o.credits ?? 1000 });
  await setDefaultEndpoint(on.ctx.db, c.accountId, { url: o.url === undefined ? sink.url : o.url, enabled: o.enabled !== false });
  await on.ctx.db.updateTable("accounts").set({ payments_webhook_url: o.paymentsUrl ?? null }).where("id", "=", c.accountId).execute();
  return c;
}

async function trigger(c: TestClient, body: unknown) {
  const res = await c.request("POST", "/v1/address-watch/webhook/test", body);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const delivery = (id: string, on: TestDaemon = td) => on.ctx.db.selectFrom("deliveries").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
const receivedFor = (id: string) => sink.received.filter((r) => r.headers["x-webhook-id"] === id);

describe("POST /v1/address-watch/webhook/test", () => {
  test("answers 202 at once while the receiver hangs, then delivers a signed test that is never billed", async () => {
    const c = await clientWithWebhook({ credits: 1000 });
    let release: () => void = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    sink.respond(async () => {
      await held;
      return new Response("ok");
    });
    const res = await trigger(c, { event: "payment", network: "eth" });
    expect(res.status).toBe(202);
    expect(Object.keys(res.body)).toEqual(["queued", "delivery_id"]);
    expect(res.body.queued).toBe(true);
    const id = res.body.delivery_id as string;
    expect(id).toMatch(/^dlv_[0-9a-f]{24}$/);

    // The wake-up path sends it without waiting for the next tick; the receiver still holds it.
    await until(async () => receivedFor(id).length, (n) => n === 1);
    release();
    sink.respond(() => new Response("ok"));
    const d = await until(() => delivery(id), (row) => row.status !== "pending");
    expect(d).toMatchObject({ kind: "test", event_type: "payment", network: "eth", event_id: null, credits_charged: 0 });

    const r = receivedFor(id)[0];
    expect(r.headers["x-webhook-test"]).toBe("true");
    expect(r.headers["x-signature"]).toBe(expectedXSignature(c.webhookSecret, r.headers["x-timestamp"], r.body));
    verifyStandardWebhook(c.webhookSecret, r);
    const acct = await td.ctx.db.selectFrom("accounts").select("credits").where("id", "=", c.accountId).executeTakeFirstOrThrow();
    expect(Number(acct.credits)).toBe(1000);
    const events = await td.ctx.db.selectFrom("events").select("id").where("account_id", "=", c.accountId).execute();
    expect(events).toEqual([]);
    const usage = await td.ctx.db.selectFrom("usage_daily").selectAll().where("account_id", "=", c.accountId).execute();
    expect(usage).toEqual([]);
  });

  test("a test to a receiver that hangs past timeout_ms is recorded as a timeout", async () => {
    const short = await startDaemon(300);
    try {
      const c = await clientWithWebhook({ on: short });
      sink.respond(() => new Promise<Response>(() => {}));
      const res = await trigger(c, { event: "block", network: "eth" });
      expect(res.status).toBe(202);
      const d = await until(() => delivery(res.body.delivery_id as string, short), (row) => row.attempts === 1);
      expect(d).toMatchObject({ status: "pending", last_error: "timeout", credits_charged: 0 });
    } finally {
      sink.respond(() => new Response("ok"));
      await short.stop();
    }
  });

  test.each([
    ["payment", "eth"],
    ["payout", "btc"],
    ["other", "tron"],
    ["block", "sol"],
    ["payment_order", "polygon"],
  ])("sends a realistic %s body for %s", async (event, network) => {
    const c = await clientWithWebhook();
    sink.respond(() => new Response("ok"));
    const res = await trigger(c, { event, network });
    expect(res.status).toBe(202);
    const id = res.body.delivery_id as string;
    await until(async () => receivedFor(id).length, (n) => n === 1);
    const body = JSON.parse(receivedFor(id)[0].body);
    const rfc3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/;
    if (event === "block") {
      expect(Object.keys(body)).toEqual(["id", "type", "network", "block_height", "block_hash", "tx_count", "transactions", "created_at", "removed"]);
      expect(body).toMatchObject({ type: "block", network, tx_count: body.transactions.length });
      expect(body.id).toMatch(/^evt_/);
      expect(body.created_at).toMatch(rfc3339);
    } else if (event === "payment_order") {
      expect(Object.keys(body)).toEqual([
        "product", "type", "event", "payment_id", "order_id", "network", "address", "asset", "amount", "amount_raw",
        "amount_received", "amount_received_raw", "status", "lifecycle", "tx_hash", "aml",
      ]);
      expect(body).toMatchObject({ product: "payments", type: "payment_order", event: "paid", status: "paid", lifecycle: "paid", network, amount: "1.5", amount_raw: "1500000000000000000" });
      expect(body.payment_id).toMatch(/^pay_/);
      expect(Object.keys(body.aml)).toEqual(["score", "risk_level", "hacking_event", "detail_list", "risk_detail", "address_label", "checked_at"]);
      expect(body.aml.checked_at).toMatch(rfc3339);
    } else {
      expect(Object.keys(body)).toEqual([
        "id", "type", "direction", "watch_id", "network", "address", "tx_hash", "block_height", "block_hash",
        "asset", "token_standard", "token_id", "amount", "amount_raw", "internal", "created_at", "removed",
      ]);
      expect(body).toMatchObject({ type: event, direction: event === "payout" ? "out" : "in", network, asset: null });
      expect(body.watch_id).toMatch(/^aw_/);
      expect(body.amount).toBe(event === "other" ? "0" : "1.5");
    }
  });

  test.each(["payment", "payout", "other", "block"])("a test %s body has exactly the keys of the real event from an ingested block", async (event) => {
    const c = await clientWithWebhook();
    sink.respond(() => new Response("ok"));
    const watched = "0x52908400098527886e0f7030069857d2e4169ee7";
    const other = "0xde709f2102306220921060314715629080e2fb77";
    expect((await c.request("POST", "/v1/address-watch/addresses", { network_slug: "eth", address: watched })).status).toBe(201);
    const transactions = [
      { hash: `0x${"a1".repeat(32)}`, from: other, to: watched, value: "1500000000000000000" },
      { hash: `0x${"a2".repeat(32)}`, from: watched, to: other, value: "1500000000000000000" },
      { hash: `0x${"a3".repeat(32)}`, from: other, to: watched, value: "0" },
    ];
    const height = 7_000_000 + ++ingested;
    expect((await td.ingest({ network: "eth", height, hash: `0x${height.toString(16).padStart(64, "0")}`, transactions })).status).toBe(202);
    const listing = await c.request("GET", `/v1/address-watch/events?type=${event}`);
    const [real] = ((await listing.json()) as { events: Record<string, unknown>[] }).events;
    expect(real).toBeDefined();

    const res = await trigger(c, { event, network: "eth" });
    expect(res.status).toBe(202);
    const id = res.body.delivery_id as string;
    await until(async () => receivedFor(id).length, (n) => n === 1);
    expect(Object.keys(JSON.parse(receivedFor(id)[0].body))).toEqual(Object.keys(real));
  });

  test("a test of an address-watch kind goes to the webhook URL even while the webhook is disabled", async () => {
    const c = await clientWithWebhook({ enabled: false });
    const res = await trigger(c, { event: "other", network: "eth" });
    expect(res.status).toBe(202);
    await until(async () => receivedFor(res.body.delivery_id as string).length, (n) => n === 1);
  });

  test.each([
    [{ event: "transfer", network: "eth" }, "event must be one of payment, payout, other, block, payment_order"],
    [{ event: "payment", network: "dogecoin" }, "Unknown network: dogecoin"],
    // Object.prototype's members are not networks (this once answered 500).
    [{ event: "payment", network: "constructor" }, "Unknown network: constructor"],
    [{ network: "eth" }, "event is required"],
    [{ event: "payment" }, "network is required"],
    [{ event: 1, network: "eth" }, "event must be a string"],
    [{ event: "payment", network: "eth", extra: true }, "extra is not a known field"],
    [[], "body must be an object"],
  ])("answers 400 to %j naming the field", async (body, error) => {
    const c = await clientWithWebhook();
    expect(await trigger(c, body)).toEqual({ status: 400, body: { error } });
  });

  test("answers 400 Invalid JSON body. to a body that is not JSON", async () => {
    const c = await clientWithWebhook();
    expect(await trigger(c, "{nope")).toEqual({ status: 400, body: { error: "Invalid JSON body." } });
  });

  test("answers 400 when the account has no webhook URL at all", async () => {
    const c = await clientWithWebhook({ url: null });
    expect(await trigger(c, { event: "payment", network: "eth" })).toEqual({ status: 400, body: { error: "No webhook URL configured." } });
  });

  test("answers 400 to a payment_order test with no payments URL and the webhook disabled", async () => {
    const c = await clientWithWebhook({ enabled: false });
    expect(await trigger(c, { event: "payment_order", network: "eth" })).toEqual({
      status: 400,
      body: { error: "Webhook is disabled and no payments webhook_url is set." },
    });
  });

  test("needs a signed request", async () => {
    const res = await fetch(`${td.url}/v1/address-watch/webhook/test`, { method: "POST", body: "{}" });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: "Missing X-Api-Key" });
  });
});
