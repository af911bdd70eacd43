import { type TSchema, Type as T } from "@sinclair/typebox";
import { WebhookTestSchema } from "../../webhooks/test-endpoint.ts";
import { RecoverSchema } from "../../webhooks/recover.ts";
import { ReplaySchema } from "../../webhooks/replay.ts";
import { BatchSchema } from "../../ingest/batch-schema.ts";
import { CreateOrderBody } from "../../payments/create-order.ts";
import { PAYMENT_STATUSES } from "../../payments/orders.ts";
import { PaymentSettingsSchema } from "../../payments/settings.ts";
import { PutWalletBody } from "../../payments/wallets/put-wallet.ts";
import { DeleteWatchSchema } from "../../watch/unwatch-address.ts";
import { AddWatchSchema } from "../../watch/watch-address.ts";
import { AddWatchBatchSchema, DeleteWatchBatchSchema } from "../../watch/watch-batch.ts";
import { EndpointCreateSchema, EndpointPatchSchema, MAX_DESCRIPTION_LENGTH, WebhookUpdateSchema } from "../../webhooks/settings.ts";
import { RotateSecretSchema } from "../../webhooks/endpoint-secret.ts";
import { MAX_DELIVERY_RPS } from "../../config/schema.ts";
import { TOKEN_STANDARDS } from "../../chain/token-standard.ts";

// Response and webhook bodies as TypeBox schemas: the OpenAPI document's components, and what the
// tests check real responses against, so the document cannot drift from what the API sends.
// Request bodies are the capability folders' own schemas, the ones their use cases check.
// Objects stay open (no additionalProperties: false): adding a field is not a breaking change.

const Rfc3339 = T.String({ format: "date-time", description: "RFC 3339 with a numeric offset, e.g. 2026-11-21T19:08:00.000+00:00" });
const Decimal = T.String({ pattern: "^[0-9]+(\\.[0-9]+)?$", description: "Decimal amount, e.g. \"1.5\"" });
const RawAmount = T.String({ pattern: "^[0-9]+$", description: "Integer amount in the smallest unit" });
const Nullable = <S extends TSchema>(s: S, options: { description?: string } = {}) => T.Union([s, T.Null()], options);
const Status = T.Union(PAYMENT_STATUSES.map((s) => T.Literal(s)));

export const ErrorBody = T.Object({ error: T.String({ description: "What went wrong; a field error names the field" }) });
export const Health = T.Object({ ok: T.Literal(true) });
export const Unhealthy = T.Object({ ok: T.Literal(false), error: T.String({ description: "Why: the database did not answer, and the driver's words" }) });

export const Account = T.Object({
  account_id: T.String(),
  name: T.String(),
  environment: T.String(),
  plan: T.Object({ name: T.String(), address_slots: T.Integer(), rpc_rps: T.Integer(), monthly_credits: T.Integer() }),
  credits: T.Object({ balance: T.Integer(), spent_today: T.Integer() }),
  address_slots: T.Object({ used: T.Integer(), limit: T.Integer() }),
});

export const Usage = T.Object({
  days: T.Integer({ minimum: 1, maximum: 90 }),
  series: T.Array(
    T.Object({
      date: T.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}$" }),
      credits: T.Integer(),
      deliveries: T.Integer(),
      events: T.Integer(),
      rpc_calls: T.Integer({ description: "JSON-RPC calls answered by the node or the cache" }),
    }),
    { description: "Exactly `days` UTC days, oldest first, today last, zero-filled" },
  ),
});

export const Endpoints = T.Object({
  endpoints: T.Array(
    T.Object({
      network: T.String(),
      family: T.String(),
      decimals: T.Integer(),
      confirmations: T.Integer(),
      blocks_from: T.Union([T.Literal("follower"), T.Literal("ingest")], {
        description: "`follower`: a built-in follower reads the network's node; `ingest`: only POST /ingest/blocks and `chainwatch ingest` feed it",
      }),
      rpc: T.Boolean({ description: "Whether POST /rpc/{network} forwards calls for it" }),
    }),
  ),
});

export const AddressWatchAccount = T.Object({
  address_slots: T.Object({ used: T.Integer(), limit: T.Integer() }),
  webhook: T.Object({ url: Nullable(T.String()), enabled: T.Boolean() }),
  events_total: T.Integer(),
});

export const Watch = T.Object({ watch_id: T.String({ pattern: "^aw_" }), network_slug: T.String(), address: T.String(), created_at: Rfc3339 });
export const WatchList = T.Object({ addresses: T.Array(Watch) });
export const WatchDeleted = T.Object({ watch_id: T.String(), deleted: T.Literal(true) });
export const WatchBatchResult = T.Object({
  results: T.Array(T.Union([Watch, ErrorBody]), { description: "One per item, in the request's order: the single add's record, or why the item was refused" }),
});
export const WatchDeleteBatchResult = T.Object({
  results: T.Array(T.Union([WatchDeleted, ErrorBody]), { description: "One per id, in the request's order: deleted, or `Watch not found.`" }),
});

export const EventFilters = T.Object({
  payment: T.Boolean(),
  payment_networks: T.Array(T.String()),
  payout: T.Boolean(),
  payout_networks: T.Array(T.String()),
  block: T.Boolean(),
  block_networks: T.Array(T.String()),
  min_confirmations: T.Integer({ minimum: 0, maximum: 1000, description: "Wallet and block events wait for this many confirmations before delivery; 0: at once" }),
});

export const WebhookSettings = T.Object({
  url: Nullable(T.String()),
  enabled: T.Boolean(),
  events: EventFilters,
  egress_ips: T.Array(T.String(), { description: "Read-only: the public source IPs of outbound POSTs" }),
  delivery: T.Object({
    max_rps: T.Integer({
      minimum: 0,
      maximum: MAX_DELIVERY_RPS,
      description: "Most deliveries a second to the webhook (the account's own limit, else the operator's default); 0: no limit",
    }),
  }),
});

const deliveryRate = (what: string) =>
  T.Object({
    max_rps: T.Integer({
      minimum: 0,
      maximum: MAX_DELIVERY_RPS,
      description: `Most deliveries a second to ${what} (its own limit, else the operator's default); 0: no limit`,
    }),
  });

export const EndpointFilters = T.Object({
  ...EventFilters.properties,
  payment_order: T.Boolean({ description: "Takes payment-order webhooks while the account has no payments webhook_url" }),
});

export const Endpoint = T.Object({
  endpoint_id: T.String({ pattern: "^ep_" }),
  url: Nullable(T.String()),
  enabled: T.Boolean(),
  description: Nullable(T.String({ maxLength: MAX_DESCRIPTION_LENGTH })),
  events: EndpointFilters,
  delivery: deliveryRate("the endpoint"),
  created_at: Rfc3339,
});

export const EndpointCreated = T.Object({
  ...Endpoint.properties,
  secret: T.String({ pattern: "^whsec_", description: "The endpoint's signing secret: in this answer (and a rotation's) only" }),
});

export const EndpointList = T.Object({ endpoints: T.Array(Endpoint, { description: "Oldest first: the first is the default endpoint, the one the /v1/address-watch/webhook routes act on" }) });
export const EndpointDeleted = T.Object({ endpoint_id: T.String({ pattern: "^ep_" }), deleted: T.Literal(true) });

export const RotatedEndpointSecret = T.Object({
  endpoint_id: T.String({ pattern: "^ep_" }),
  secret: T.String({ pattern: "^whsec_", description: "The new secret: shown in this answer only" }),
  previous_expires_at: T.String({
    format: "date-time",
    description: "When the previous secret stops signing (RFC 3339); the time of the rotation itself with grace_seconds 0",
  }),
});

export const RotatedWebhookSecret = T.Object({
  webhook_secret: T.String({ pattern: "^whsec_", description: "The new secret: shown in this answer only" }),
  previous_expires_at: T.String({
    format: "date-time",
    description: "When the previous secret stops signing (RFC 3339); the time of the rotation itself with grace_seconds 0",
  }),
});

export const TestQueued = T.Object({ queued: T.Literal(true), delivery_id: T.String({ pattern: "^dlv_" }) });

export const RecoverResult = T.Object({
  requeued: T.Integer({ minimum: 0, description: "Failed deliveries put back in the queue by this call" }),
  more: T.Boolean({ description: "true when failed deliveries remain in the range: call again with the same range" }),
});

export const ReplayResult = T.Object({
  queued: T.Integer({ minimum: 0, description: "New deliveries queued by this call" }),
  next_after: Nullable(T.String({ pattern: "^evt_", description: "Pass as `after` (with the same until, types and networks) for the rest; null when done" })),
});

/** A wallet hit on a watched address: webhook body and events-listing item. */
export const WalletEvent = T.Object({
  id: T.String({ pattern: "^evt_" }),
  type: T.Union([T.Literal("payment"), T.Literal("payout"), T.Literal("other")]),
  direction: T.Union([T.Literal("in"), T.Literal("out")]),
  watch_id: T.String(),
  network: T.String(),
  address: T.String(),
  tx_hash: T.String(),
  block_height: T.Integer(),
  block_hash: T.String(),
  asset: Nullable(T.String({ description: "Token contract; null for the native coin" })),
  token_standard: Nullable(T.Union(TOKEN_STANDARDS.map((s) => T.Literal(s))), {
    description: "erc20, erc721 or erc1155 on evm networks, trc20 on tron; null for the native coin",
  }),
  token_id: Nullable(T.String({ pattern: "^[0-9]+$", description: "erc721 and erc1155: the token id as a decimal string; null otherwise" })),
  amount: Decimal,
  amount_raw: RawAmount,
  internal: T.Boolean({ description: "true for native value moved by a call inside a contract's execution (networks with traces on)" }),
  removed: T.Boolean({ description: "true once a reorg orphaned the block: the event is delivered again with removed: true" }),
  created_at: Rfc3339,
});

/** A new block on a network the account watches: webhook body and events-listing item. */
export const BlockEvent = T.Object({
  id: T.String({ pattern: "^evt_" }),
  type: T.Literal("block"),
  network: T.String(),
  block_height: T.Integer(),
  block_hash: T.String(),
  tx_count: T.Integer(),
  transactions: T.Array(T.String()),
  removed: T.Boolean({ description: "true once a reorg orphaned the block: the event is delivered again with removed: true" }),
  created_at: Rfc3339,
});

export const EventList = T.Object({
  events: T.Array(T.Union([WalletEvent, BlockEvent])),
  next_after: Nullable(T.String({ description: "Pass as `after` for the next page; null when nothing follows" })),
});

export const Aml = T.Object({
  score: T.Number(),
  risk_level: T.Union([T.Literal("low"), T.Literal("medium"), T.Literal("high"), T.Literal("severe")]),
  hacking_event: T.String(),
  detail_list: T.Array(T.Unknown()),
  risk_detail: T.Array(T.Unknown()),
  address_label: T.String(),
  checked_at: Rfc3339,
});

const orderFacts = {
  payment_id: T.String({ pattern: "^pay_" }),
  order_id: T.String(),
  network: T.String(),
  address: T.String(),
  asset: Nullable(T.String()),
  amount: Decimal,
  amount_raw: RawAmount,
  amount_received: Decimal,
  amount_received_raw: RawAmount,
};

export const LatePayment = T.Object({
  tx_hash: T.String(),
  amount: Decimal,
  amount_raw: RawAmount,
  block_height: T.Integer(),
});

export const PaymentOrder = T.Object({
  ...orderFacts,
  status: Status,
  tx_hash: Nullable(T.String()),
  expires_at: Rfc3339,
  created_at: Rfc3339,
  aml: Nullable(Aml),
  derivation_index: Nullable(T.Integer({ minimum: 0 }), { description: "The payment wallet's index the address was derived at; null for an address the client gave" }),
  late_payments: T.Array(LatePayment, { description: "Payments to a wallet's address after the order ended, oldest first; always empty for an address the client gave" }),
  checkout_url: T.String({ description: "The payer's page for this order: `<server.public_url>/pay/<token>`, public, for anyone who has the link" }),
  description: Nullable(T.String(), { description: "Shown to the payer on the checkout page" }),
  redirect_url: Nullable(T.String(), { description: "The checkout page's \"Back to shop\" link once the order is final" }),
});

export const PaymentList = T.Object({ payments: T.Array(PaymentOrder) });

/** The webhook announcing that an order entered a state. */
export const PaymentOrderWebhook = T.Object({
  product: T.Literal("payments"),
  type: T.Literal("payment_order"),
  event: Status,
  ...orderFacts,
  status: Status,
  lifecycle: Status,
  tx_hash: Nullable(T.String()),
  aml: Nullable(Aml, { description: "The screening result on paid and failed; null otherwise" }),
});

/** The webhook announcing a payment to a wallet's address after its order ended, or (removed) taking it back. */
export const LatePaymentWebhook = T.Object({
  product: T.Literal("payments"),
  type: T.Literal("payment_order"),
  event: T.Literal("late_payment"),
  ...orderFacts,
  status: Status,
  lifecycle: Status,
  tx_hash: Nullable(T.String()),
  aml: T.Null(),
  late_payment: LatePayment,
  removed: T.Boolean({ description: "true on the retraction of an announced late payment whose block a reorg orphaned" }),
});

export const WalletKind = T.Union([T.Literal("pkh"), T.Literal("sh-wpkh"), T.Literal("wpkh"), T.Literal("tr"), T.Literal("bip44")]);

export const PaymentWallet = T.Object({
  network: T.String(),
  kind: WalletKind,
  fingerprint: T.String({ pattern: "^[0-9a-f]{8}$", description: "First 4 bytes of HASH160 of the extended key's public key, hex" }),
  next_index: T.Integer({ minimum: 0, description: "The index the next order without an address takes" }),
  gap_limit: T.Integer({ minimum: 1 }),
  unused_tail: T.Integer({ minimum: 0, description: "Indices handed out after the last one that received anything" }),
  created_at: Rfc3339,
});

export const PaymentWalletList = T.Object({ wallets: T.Array(PaymentWallet, { description: "One per network, by network" }) });

export const PaymentWalletDeleted = T.Object({ network: T.String(), deleted: T.Literal(true) });

/** What a payer's checkout page shows of an order, as its JSON and each live update carry it (docs/checkout.md). */
export const CheckoutState = T.Object({
  status: T.Union(["waiting", "seen", "underpaid", "paid", "failed", "expired"].map((s) => T.Literal(s)), {
    description: "In the payer's words: seen covers everything from the first payment to the verdict (confirmations, finishing up)",
  }),
  amount: Decimal,
  amount_due: T.String({ description: "What the payer should still send now (\"0\" once nothing is due or the order is final)" }),
  asset: Nullable(T.String(), { description: "The token contract; null for the native coin" }),
  network: T.String(),
  address: T.String(),
  expires_at: Rfc3339,
  payment_uri: Nullable(T.String(), { description: "The payment request for amount_due (BIP-21, EIP-681, or the address); null when nothing is due" }),
  confirmations: T.Object({ have: T.Integer(), need: T.Integer() }),
  redirect_url: Nullable(T.String(), { description: "The shop's link once the order is paid, failed or expired; null before" }),
});

export const IngestResult = T.Object({
  blocks: T.Integer({ description: "Blocks stored that were not stored before" }),
  events: T.Integer({ description: "Events written, counted per account" }),
});

export const WebhookHealth = T.Object({
  state: T.Union([T.Literal("healthy"), T.Literal("held"), T.Literal("failing"), T.Literal("disabled")], {
    description:
      "disabled while the endpoint is off (switched off after delivery.disable_after_hours of failures, or by the account); failing while the last attempt failed; held while deliveries wait because the credits cannot pay (held_no_credits > 0)",
  }),
  failing_since: Nullable(T.Integer(), { description: "Unix seconds of the first failed attempt of the current run of failures; null when not failing" }),
  last_success_at: Nullable(T.Integer(), { description: "Unix seconds of the last successful attempt; null if none" }),
  last_error: Nullable(T.Object({ status_code: Nullable(T.Integer()), error: T.String() }), { description: "The last failed attempt of the current run; null when not failing" }),
  pending: T.Integer({ minimum: 0, description: "The endpoint's address-watch deliveries waiting to be sent (a retry, or the endpoint to be enabled)" }),
  failed: T.Integer({ minimum: 0, description: "The endpoint's address-watch deliveries that used up their attempts" }),
  held_no_credits: T.Integer({
    minimum: 0,
    description: "Deliveries of the account waiting (paused) because its credits cannot pay for them; they go out once credits are added",
  }),
});

export const Notice = T.Object({
  id: T.String({ pattern: "^ntc_" }),
  type: T.Union([T.Literal("endpoint_disabled"), T.Literal("delivery_failed"), T.Literal("credits_exhausted"), T.Literal("wallet_gap"), T.Literal("quorum_waiting")]),
  created_at: Rfc3339,
  message: T.String(),
  delivery_id: T.Optional(T.String({ pattern: "^dlv_", description: "The delivery a delivery_failed notice is about" })),
  resolved_at: Nullable(Rfc3339, {
    description: "When the notice's cause ended (the webhook switched on again, the delivery re-queued, credits added); null while it stands",
  }),
});

export const NoticeList = T.Object({
  notices: T.Array(Notice, { description: "Newest first" }),
  next_after: Nullable(T.String({ description: "Pass as `after` for the next (older) page; null when nothing follows" })),
});

/** Every named schema, as `components.schemas` lists it. */
export const SCHEMAS = {
  Error: ErrorBody,
  Health,
  Unhealthy,
  Account,
  Usage,
  Endpoints,
  AddressWatchAccount,
  AddWatch: AddWatchSchema,
  DeleteWatch: DeleteWatchSchema,
  AddWatchBatch: AddWatchBatchSchema,
  DeleteWatchBatch: DeleteWatchBatchSchema,
  Watch,
  WatchList,
  WatchDeleted,
  WatchBatchResult,
  WatchDeleteBatchResult,
  EventFilters,
  WebhookSettings,
  WebhookUpdate: WebhookUpdateSchema,
  WebhookTest: WebhookTestSchema,
  RotateWebhookSecret: RotateSecretSchema,
  RotatedWebhookSecret,
  EndpointFilters,
  Endpoint,
  EndpointCreate: EndpointCreateSchema,
  EndpointCreated,
  EndpointPatch: EndpointPatchSchema,
  EndpointList,
  EndpointDeleted,
  RotatedEndpointSecret,
  TestQueued,
  RecoverRequest: RecoverSchema,
  RecoverResult,
  ReplayRequest: ReplaySchema,
  ReplayResult,
  WalletEvent,
  BlockEvent,
  EventList,
  Aml,
  CreatePaymentOrder: CreateOrderBody,
  PaymentOrder,
  PaymentList,
  PaymentSettings: PaymentSettingsSchema,
  PaymentOrderWebhook,
  LatePaymentWebhook,
  PutPaymentWallet: PutWalletBody,
  PaymentWallet,
  PaymentWalletList,
  PaymentWalletDeleted,
  CheckoutState,
  IngestBatch: BatchSchema,
  IngestResult,
  WebhookHealth,
  Notice,
  NoticeList,
} satisfies Record<string, TSchema>;

export type SchemaName = keyof typeof SCHEMAS;
