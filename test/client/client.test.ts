import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ChainwatchError, type ChainwatchClient, createClient } from "chainwatch/client";
import { manualClock } from "../support/clock.ts";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";

// Every method of the SDK once against a real daemon, through the package's own export. The
// daemon's clock is held still and the SDK signs with the same clock, so times are exact.
const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);
const clock = manualClock(NOW);
const AT = "2026-11-21T12:00:00.000+00:00";
const ADDRESS = "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed";
let td: TestDaemon;
let sink: WebhookSink;

beforeAll(async () => {
  sink = startWebhookSink();
  // The clock stands still, so every request of the file falls in one rate-limit window.
  td = await startTestDaemon({ clock, config: { rate_limit: { per_key_rps: 1000 } } });
});
afterAll(async () => {
  await td.stop();
  await sink.stop();
});

function sdk(c: { apiKey: string; secret: string }, baseUrl = td.url): ChainwatchClient {
  return createClient({ baseUrl, apiKey: c.apiKey, secret: c.secret, now: clock.now });
}

/** The ChainwatchError a call rejects with. */
async function refusal(call: Promise<unknown>): Promise<ChainwatchError> {
  const error = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ChainwatchError);
  return error as ChainwatchError;
}

const fields = (e: ChainwatchError) => ({ status: e.status, error: e.error, retryAfter: e.retryAfter });

describe("the account methods", () => {
  let c: TestClient;
  let client: ChainwatchClient;
  beforeAll(async () => {
    c = await td.client({ name: "sdk-account", slots: 4, credits: 250 });
    client = sdk(c);
  });

  test("getAccount answers the plan and usage snapshot", async () => {
    expect(await client.getAccount()).toEqual({
      account_id: c.accountId,
      name: "sdk-account",
      environment: "production",
      plan: { name: "plan-sdk-account", address_slots: 4, rpc_rps: 25, monthly_credits: 0 },
      credits: { balance: 250, spent_today: 0 },
      address_slots: { used: 0, limit: 4 },
    });
  });

  test("getUsage answers exactly the days asked, today last", async () => {
    expect(await client.getUsage({ days: 2 })).toEqual({
      days: 2,
      series: [
        { date: "2026-11-20", credits: 0, deliveries: 0, events: 0, rpc_calls: 0 },
        { date: "2026-11-21", credits: 0, deliveries: 0, events: 0, rpc_calls: 0 },
      ],
    });
    expect((await client.getUsage()).series.length).toBe(30);
  });

  test("listNotices answers an empty first page", async () => {
    expect(await client.listNotices({ limit: 5 })).toEqual({ notices: [], next_after: null });
  });

  test("listEndpoints lists the default networks", async () => {
    expect(await client.listEndpoints()).toEqual({
      endpoints: [
        { network: "eth", family: "evm", decimals: 18, confirmations: 12, blocks_from: "ingest", rpc: false },
        { network: "bsc", family: "evm", decimals: 18, confirmations: 15, blocks_from: "ingest", rpc: false },
        { network: "polygon", family: "evm", decimals: 18, confirmations: 64, blocks_from: "ingest", rpc: false },
        { network: "btc", family: "btc", decimals: 8, confirmations: 2, blocks_from: "ingest", rpc: false },
        { network: "tron", family: "tron", decimals: 6, confirmations: 19, blocks_from: "ingest", rpc: false },
        { network: "sol", family: "solana", decimals: 9, confirmations: 32, blocks_from: "ingest", rpc: false },
      ],
    });
  });

  test("request reaches any signed endpoint by path, query included", async () => {
    expect(await client.request("GET", "/v1/account/usage", { query: { days: 1 } })).toEqual({
      days: 1,
      series: [{ date: "2026-11-21", credits: 0, deliveries: 0, events: 0, rpc_calls: 0 }],
    });
  });

  test("a base URL with a trailing slash works the same", async () => {
    expect((await sdk(c, `${td.url}/`).getAccount()).account_id).toBe(c.accountId);
  });
});

describe("the address-watch methods", () => {
  test("watch, list, unwatch, and the slots they use", async () => {
    const c = await td.client({ slots: 2 });
    const client = sdk(c);
    expect(await client.getAddressWatchAccount()).toEqual({ address_slots: { used: 0, limit: 2 }, webhook: { url: null, enabled: false }, events_total: 0 });

    const watch = await client.addWatch({ network_slug: "eth", address: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed" });
    expect(watch).toEqual({ watch_id: expect.stringMatching(/^aw_/), network_slug: "eth", address: ADDRESS, created_at: AT });
    // The same address again is the same record, with no extra slot.
    expect(await client.addWatch({ network_slug: "eth", address: ADDRESS })).toEqual(watch);
    expect(await client.listWatches()).toEqual({ addresses: [watch] });
    expect((await client.getAddressWatchAccount()).address_slots).toEqual({ used: 1, limit: 2 });

    expect(await client.deleteWatch({ watch_id: watch.watch_id })).toEqual({ watch_id: watch.watch_id, deleted: true });
    expect(await client.listWatches()).toEqual({ addresses: [] });
    expect(fields(await refusal(client.deleteWatch({ watch_id: watch.watch_id })))).toEqual({ status: 404, error: "Watch not found.", retryAfter: null });
  });

  test("listEvents answers an empty page for an account with no events", async () => {
    const client = sdk(await td.client());
    expect(await client.listEvents({ limit: 10 })).toEqual({ events: [], next_after: null });
  });

  test("the webhook: read, set, its health, a test delivery, recovery and replay", async () => {
    const c = await td.client();
    const client = sdk(c);
    const filters = { payment: true, payment_networks: [], payout: true, payout_networks: [], block: true, block_networks: [], min_confirmations: 0 };
    expect(await client.getWebhook()).toEqual({ url: null, enabled: false, events: filters, egress_ips: [], delivery: { max_rps: 0 } });

    const updated = await client.updateWebhook({ url: sink.url, enabled: true, events: { block: false }, delivery: { max_rps: 5 } });
    expect(updated).toEqual({ url: sink.url, enabled: true, events: { ...filters, block: false }, egress_ips: [], delivery: { max_rps: 5 } });
    expect(await client.getWebhook()).toEqual(updated);
    // What GET answers can be sent back as it is.
    expect(await client.updateWebhook(updated)).toEqual(updated);

    expect(await client.getWebhookHealth()).toEqual({ state: "healthy", failing_since: null, last_success_at: null, last_error: null, pending: 0, failed: 0, held_no_credits: 0 });

    const queued = await client.testWebhook({ event: "payment", network: "eth" });
    expect(queued).toEqual({ queued: true, delivery_id: expect.stringMatching(/^dlv_/) });
    const received = await sink.waitFor(1);
    expect(received.some((r) => r.headers["x-webhook-id"] === queued.delivery_id)).toBe(true);

    const since = Math.floor(NOW / 1000) - 3600;
    expect(await client.recoverDeliveries({ since })).toEqual({ requeued: 0, more: false });
    expect(await client.replayEvents({ since })).toEqual({ queued: 0, next_after: null });
  });
});

describe("the webhook secret", () => {
  test("rotateWebhookSecret answers the new secret and when the previous one stops signing", async () => {
    const c = await td.client();
    const client = sdk(c);
    const rotated = await client.rotateWebhookSecret({ grace_seconds: 60 });
    expect(rotated).toEqual({ webhook_secret: expect.stringMatching(/^whsec_/), previous_expires_at: "2026-11-21T12:01:00.000+00:00" });
    expect(rotated.webhook_secret).not.toBe(c.webhookSecret);
    expect(await client.rotateWebhookSecret()).toEqual({ webhook_secret: expect.stringMatching(/^whsec_/), previous_expires_at: "2026-11-22T12:00:00.000+00:00" });
    expect(fields(await refusal(client.rotateWebhookSecret({ grace_seconds: -1 })))).toMatchObject({ status: 400, retryAfter: null });
  });
});

describe("the payment methods", () => {
  test("create, get, list and the payments webhook setting", async () => {
    const client = sdk(await td.client());
    const order = await client.createPayment({ order_id: "sdk-order-1", network: "eth", address: ADDRESS, amount: "1.5", expires_in_seconds: 600 });
    expect(order).toEqual({
      payment_id: expect.stringMatching(/^pay_/),
      order_id: "sdk-order-1",
      network: "eth",
      address: ADDRESS,
      asset: null,
      amount: "1.5",
      amount_raw: "1500000000000000000",
      amount_received: "0",
      amount_received_raw: "0",
      status: "pending",
      tx_hash: null,
      expires_at: "2026-11-21T12:10:00.000+00:00",
      created_at: AT,
      aml: null,
      derivation_index: null,
      late_payments: [],
      checkout_url: expect.stringMatching(new RegExp(`^${td.url}/pay/[A-Za-z0-9_-]{32}$`)),
      description: null,
      redirect_url: null,
    });
    expect(await client.getPayment(order.payment_id)).toEqual(order);
    expect(await client.listPayments()).toEqual({ payments: [order] });
    expect(await client.listPayments({ order_id: "sdk-order-1", status: "pending", limit: 1 })).toEqual({ payments: [order] });
    expect(await client.listPayments({ status: "paid" })).toEqual({ payments: [] });

    expect(fields(await refusal(client.createPayment({ order_id: "sdk-order-1", network: "eth", address: ADDRESS, amount: "2" })))).toEqual({
      status: 409,
      error: "Order already exists.",
      retryAfter: null,
    });
    expect(fields(await refusal(client.getPayment("pay_missing")))).toEqual({ status: 404, error: "Payment not found.", retryAfter: null });

    expect(await client.getPaymentSettings()).toEqual({ webhook_url: null });
    expect(await client.updatePaymentSettings({ webhook_url: sink.url })).toEqual({ webhook_url: sink.url });
    expect(await client.getPaymentSettings()).toEqual({ webhook_url: sink.url });
    expect(await client.updatePaymentSettings({ webhook_url: null })).toEqual({ webhook_url: null });
  });
});

describe("the payment wallet methods", () => {
  // The account-level key of m/44'/60'/0' of the BIP-39 test phrase "abandon … about"; its index 0 is the phrase's well-known first address.
  const ACCOUNT_XPUB = "xpub6DCoCpSuQZB2jawqnGMEPS63ePKWkwWPH4TU45Q7LPXWuNd8TMtVxRrgjtEshuqpK3mdhaWHPFsBngh5GFZaM6si3yZdUsT8ddYM3PwnATt";

  test("put, list and delete a wallet; an order without an address takes its next one", async () => {
    const client = sdk(await td.client());
    const wallet = { network: "eth", kind: "bip44" as const, fingerprint: "60b68b69", next_index: 0, gap_limit: 20, unused_tail: 0, created_at: AT };
    expect(await client.putPaymentWallet("eth", { key: ACCOUNT_XPUB })).toEqual(wallet);
    const order = await client.createPayment({ order_id: "sdk-derived-1", network: "eth", amount: "1" });
    expect(order).toMatchObject({ address: "0x9858effd232b4033e47d90003d41ec34ecaeda94", derivation_index: 0, late_payments: [] });
    expect(await client.listPaymentWallets()).toEqual({ wallets: [{ ...wallet, next_index: 1, unused_tail: 1 }] });
    expect(await client.deletePaymentWallet("eth")).toEqual({ network: "eth", deleted: true });
    expect(await client.listPaymentWallets()).toEqual({ wallets: [] });
    expect(fields(await refusal(client.deletePaymentWallet("eth")))).toEqual({ status: 404, error: "Wallet not found.", retryAfter: null });
  });
});

describe("the SDK covers the API", () => {
  test("every /v1 operation of the daemon's OpenAPI document is a method named by its operation id", async () => {
    const doc = (await (await fetch(`${td.url}/openapi/json`)).json()) as { paths: Record<string, Record<string, { operationId?: string }>> };
    const client = sdk(await td.client()) as unknown as Record<string, unknown>;
    const operations = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith("/v1/"))
      .flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ operation: `${method.toUpperCase()} ${path}`, id: op.operationId })));
    expect(operations.length).toBeGreaterThanOrEqual(21);
    const missing = operations.filter(({ id }) => id === undefined || typeof client[id] !== "function");
    expect(missing).toEqual([]);
  });
});

describe("ChainwatchError", () => {
  test("an unknown API key: 401 Invalid API key", async () => {
    const stranger = sdk({ apiKey: "3f1c2b4a-0000-4000-8000-000000000000", secret: "f".repeat(64) });
    const e = await refusal(stranger.getAccount());
    expect(fields(e)).toEqual({ status: 401, error: "Invalid API key", retryAfter: null });
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe("ChainwatchError");
    expect(e.message).toBe("GET /v1/account: 401 Invalid API key");
    expect([e.method, e.path]).toEqual(["GET", "/v1/account"]);
  });

  test("the wrong secret: 401 Invalid signature", async () => {
    const c = await td.client();
    expect(fields(await refusal(sdk({ apiKey: c.apiKey, secret: "0".repeat(64) }).getAccount()))).toEqual({ status: 401, error: "Invalid signature", retryAfter: null });
  });

  test("a bad query parameter: 400 naming it", async () => {
    const client = sdk(await td.client());
    expect(fields(await refusal(client.getUsage({ days: 0 })))).toEqual({ status: 400, error: "days must be an integer from 1 to 90", retryAfter: null });
  });

  test("a bad body field: 400 naming the problem", async () => {
    const client = sdk(await td.client());
    expect(fields(await refusal(client.addWatch({ network_slug: "nope", address: ADDRESS })))).toEqual({ status: 400, error: "Unknown network: nope", retryAfter: null });
    expect(fields(await refusal(client.addWatch({ network_slug: "eth", address: "0x12" })))).toEqual({ status: 400, error: "Invalid address for network eth", retryAfter: null });
  });

  test("the slot limit: 403", async () => {
    const client = sdk(await td.client({ slots: 0 }));
    expect(fields(await refusal(client.addWatch({ network_slug: "eth", address: ADDRESS })))).toEqual({ status: 403, error: "Address slot limit reached.", retryAfter: null });
  });

  test("a daemon that is not there: the fetch error, not a ChainwatchError", async () => {
    const client = createClient({ baseUrl: "http://127.0.0.1:9", apiKey: "3f1c2b4a-0000-4000-8000-000000000000", secret: "f".repeat(64) });
    const error = await client.getAccount().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(ChainwatchError);
  });
});
