import type { SchemaName } from "./schemas.ts";

// One example body per named schema, shown beside every request body and success response that
// names it in the OpenAPI document. Plain data, no import of the schemas themselves (route modules
// import this folder); test/http/openapi.test.ts checks each example against its schema, so an
// example cannot drift from what the API takes and sends.

const ADDRESS = "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed";
const SENDER = "0x1111111111111111111111111111111111111111";
const TX = "0x9f2c0e0b6d8a4c1e3f5a7b9d1c3e5f7a9b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a";
const BLOCK = "0x3b1e6f0a2c4e6a8c0e2a4c6e8a0c2e4a6c8e0a2c4e6a8c0e2a4c6e8a0c2e4a6c";
const PARENT = "0x8d2c4e6a8c0e2a4c6e8a0c2e4a6c8e0a2c4e6a8c0e2a4c6e8a0c2e4a6c8e0a2c";
const AT = "2026-11-21T19:08:00.000+00:00";
const FILTERS = { payment: true, payment_networks: [], payout: true, payout_networks: [], block: false, block_networks: [], min_confirmations: 0 };

const walletEvent = {
  id: "evt_01jd3k6q8w0000000000000001",
  type: "payment",
  direction: "in",
  watch_id: "aw_01jd3k5t2c0000000000000001",
  network: "eth",
  address: ADDRESS,
  tx_hash: TX,
  block_height: 19_000_000,
  block_hash: BLOCK,
  asset: null,
  token_standard: null,
  token_id: null,
  amount: "1.5",
  amount_raw: "1500000000000000000",
  internal: false,
  removed: false,
  created_at: AT,
};

const order = {
  payment_id: "pay_01jd3k7a4e0000000000000001",
  order_id: "order-1042",
  network: "eth",
  address: ADDRESS,
  asset: "0xdac17f958d2ee523a2206206994597c13d831ec7",
  amount: "25",
  amount_raw: "25000000",
  amount_received: "0",
  amount_received_raw: "0",
  status: "pending",
  tx_hash: null,
  expires_at: "2026-11-21T20:08:00.000+00:00",
  created_at: AT,
  aml: null,
  derivation_index: null,
  late_payments: [],
  checkout_url: "https://pay.shop.example/pay/Zb2cS0Vx3kq8Qm1tY7hWfR4uLd9pNe6a",
  description: "Order 1042: 2 × espresso beans 1 kg",
  redirect_url: "https://shop.example/orders/1042",
};

const wallet = { network: "eth", kind: "bip44", fingerprint: "60b68b69", next_index: 42, gap_limit: 20, unused_tail: 3, created_at: AT };

const watch = { watch_id: "aw_01jd3k5t2c0000000000000001", network_slug: "eth", address: ADDRESS, created_at: AT };

const webhookSettings = {
  url: "https://shop.example/hooks/chainwatch",
  enabled: true,
  events: FILTERS,
  egress_ips: ["203.0.113.7"],
  delivery: { max_rps: 0 },
};

const endpoint = {
  endpoint_id: "ep_0642e0c7a1b2c3d4e5f60718",
  url: "https://orders.shop.example/hooks",
  enabled: true,
  description: "Order service",
  events: { ...FILTERS, payment: false, payout: false, block: false, payment_order: true },
  delivery: { max_rps: 10 },
  created_at: AT,
};

/** The example of each named schema that a request body or a success response refers to. */
export const EXAMPLES: Partial<Record<SchemaName, unknown>> = {
  Health: { ok: true },
  Unhealthy: { ok: false, error: "database unavailable: timeout exceeded when trying to connect" },
  Account: {
    account_id: "acc_5f0c2a9e7b1d4c3a8e6f0b2d",
    name: "shop",
    environment: "production",
    plan: { name: "starter", address_slots: 100, rpc_rps: 25, monthly_credits: 100_000 },
    credits: { balance: 98_450, spent_today: 350 },
    address_slots: { used: 3, limit: 100 },
  },
  Usage: {
    days: 2,
    series: [
      { date: "2026-11-20", credits: 1200, deliveries: 24, events: 24, rpc_calls: 310 },
      { date: "2026-11-21", credits: 350, deliveries: 7, events: 7, rpc_calls: 96 },
    ],
  },
  Endpoints: {
    endpoints: [
      { network: "eth", family: "evm", decimals: 18, confirmations: 12, blocks_from: "follower", rpc: true },
      { network: "btc", family: "btc", decimals: 8, confirmations: 3, blocks_from: "ingest", rpc: false },
    ],
  },
  AddressWatchAccount: { address_slots: { used: 3, limit: 100 }, webhook: { url: "https://shop.example/hooks/chainwatch", enabled: true }, events_total: 1287 },
  AddWatch: { network_slug: "eth", address: ADDRESS },
  DeleteWatch: { watch_id: "aw_01jd3k5t2c0000000000000001" },
  Watch: watch,
  WatchList: { addresses: [watch] },
  WatchDeleted: { watch_id: "aw_01jd3k5t2c0000000000000001", deleted: true },
  AddWatchBatch: { addresses: [{ network_slug: "eth", address: ADDRESS }, { network_slug: "eth", address: "0x1234" }] },
  WatchBatchResult: { results: [watch, { error: "Invalid address for network eth" }] },
  DeleteWatchBatch: { watch_ids: ["aw_01jd3k5t2c0000000000000001", "aw_01jd3k5t2c0000000000000009"] },
  WatchDeleteBatchResult: { results: [{ watch_id: "aw_01jd3k5t2c0000000000000001", deleted: true }, { error: "Watch not found." }] },
  WebhookSettings: webhookSettings,
  WebhookUpdate: { url: "https://shop.example/hooks/chainwatch", enabled: true, events: { block: false, min_confirmations: 3 } },
  WebhookTest: { event: "payment", network: "eth" },
  RotateWebhookSecret: { grace_seconds: 86_400 },
  RotatedWebhookSecret: { webhook_secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", previous_expires_at: "2026-11-22T19:08:00.000+00:00" },
  Endpoint: endpoint,
  EndpointCreate: { url: "https://orders.shop.example/hooks", description: "Order service", events: { payment: false, payout: false, block: false, payment_order: true } },
  EndpointCreated: { ...endpoint, secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" },
  EndpointPatch: { enabled: false, events: { min_confirmations: 6 } },
  EndpointList: { endpoints: [endpoint] },
  EndpointDeleted: { endpoint_id: endpoint.endpoint_id, deleted: true },
  RotatedEndpointSecret: {
    endpoint_id: endpoint.endpoint_id,
    secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    previous_expires_at: "2026-11-22T19:08:00.000+00:00",
  },
  TestQueued: { queued: true, delivery_id: "dlv_01jd3k8b6g0000000000000001" },
  RecoverRequest: { since: 1_763_700_000, until: 1_763_750_000 },
  RecoverResult: { requeued: 42, more: false },
  ReplayRequest: { since: 1_763_700_000, types: ["payment", "payout"], networks: ["eth"] },
  ReplayResult: { queued: 120, next_after: null },
  EventList: { events: [walletEvent], next_after: null },
  CreatePaymentOrder: {
    order_id: "order-1042",
    network: "eth",
    address: ADDRESS,
    amount: "25",
    asset: "0xdac17f958d2ee523a2206206994597c13d831ec7",
    decimals: 6,
    expires_in_seconds: 3600,
    description: "Order 1042: 2 × espresso beans 1 kg",
    redirect_url: "https://shop.example/orders/1042",
  },
  PaymentOrder: order,
  PaymentList: { payments: [order] },
  PaymentSettings: { webhook_url: "https://shop.example/hooks/payments" },
  PutPaymentWallet: {
    key: "xpub6DCoCpSuQZB2jawqnGMEPS63ePKWkwWPH4TU45Q7LPXWuNd8TMtVxRrgjtEshuqpK3mdhaWHPFsBngh5GFZaM6si3yZdUsT8ddYM3PwnATt",
    gap_limit: 20,
  },
  PaymentWallet: wallet,
  PaymentWalletList: { wallets: [wallet] },
  PaymentWalletDeleted: { network: "eth", deleted: true },
  CheckoutState: {
    status: "underpaid",
    amount: "25",
    amount_due: "5",
    asset: "0xdac17f958d2ee523a2206206994597c13d831ec7",
    network: "eth",
    address: ADDRESS.toLowerCase(),
    expires_at: "2026-11-21T20:08:00.000+00:00",
    payment_uri: `ethereum:0xdac17f958d2ee523a2206206994597c13d831ec7@1/transfer?address=${ADDRESS.toLowerCase()}&uint256=5000000`,
    confirmations: { have: 12, need: 12 },
    redirect_url: null,
  },
  IngestBatch: {
    network: "eth",
    height: 19_000_000,
    hash: BLOCK,
    parent_hash: PARENT,
    timestamp: 1_763_750_000,
    transactions: [{ hash: TX, from: SENDER, to: ADDRESS, value: "1500000000000000000" }],
  },
  IngestResult: { blocks: 1, events: 2 },
  WebhookHealth: {
    state: "failing",
    failing_since: 1_763_748_000,
    last_success_at: 1_763_747_400,
    last_error: { status_code: 503, error: "HTTP 503" },
    pending: 4,
    failed: 0,
    held_no_credits: 0,
  },
  NoticeList: {
    notices: [
      {
        id: "ntc_01jd3k9c8j0000000000000002",
        type: "credits_exhausted",
        created_at: AT,
        message: "Webhook deliveries are held: a payment delivery costs 50 credits and the balance is 20. Nothing is lost: held deliveries wait and go out once credits are added.",
        resolved_at: null,
      },
      {
        id: "ntc_01jd3k9c8j0000000000000001",
        type: "delivery_failed",
        created_at: AT,
        message: "Delivery dlv_01jd3k8b6g0000000000000001 failed after 11 attempts: HTTP 503",
        delivery_id: "dlv_01jd3k8b6g0000000000000001",
        resolved_at: AT,
      },
    ],
    next_after: null,
  },
};

/** Examples of the bodies that have no named schema, by operation (`METHOD /path` as the document spells it). */
export const INLINE_EXAMPLES: Record<string, { request?: unknown; response?: unknown }> = {
  "GET /metrics": {
    response: '# TYPE chainwatch_http_requests_total counter\nchainwatch_http_requests_total{route="/healthz",method="GET",status="200"} 3\n',
  },
  "POST /rpc/{network}": {
    request: { jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] },
    response: { jsonrpc: "2.0", id: 1, result: "0x121eac0" },
  },
  "POST /rpc/{network}/{api_key}": {
    request: { jsonrpc: "2.0", id: 1, method: "eth_getBalance", params: [ADDRESS, "latest"] },
    response: { jsonrpc: "2.0", id: 1, result: "0x14d1120d7b160000" },
  },
};
