import type { Generated, Insertable, Selectable } from "kysely";

// Times are integer milliseconds since the epoch; amounts in the smallest unit are TEXT (bigint in
// code) because bun:sqlite returns integers as JS numbers. JSON columns are TEXT.

export interface PlansTable {
  name: string;
  address_slots: number;
  rpc_rps: number;
  monthly_credits: number;
  /** The most webhook endpoints an account on the plan may have. */
  max_endpoints: Generated<number>;
  created_at: number;
  updated_at: number;
}

export interface AccountsTable {
  id: string;
  name: string;
  plan: string;
  credits: number;
  /** Where payment-order webhooks go instead of the endpoints (payments/settings.ts); null: the endpoints that take them. */
  payments_webhook_url: string | null;
  created_at: number;
  updated_at: number;
  /** When an operator disabled the account (`accounts disable`); null while it is enabled. */
  disabled_at: Generated<number | null>;
}

/** A webhook endpoint of an account (webhooks/endpoints.ts); the account's default is the one with the smallest id. */
export interface WebhookEndpointsTable {
  /** `ep_…`, time-ordered: the smallest of an account's is its oldest, its default endpoint. */
  id: string;
  account_id: string;
  url: string | null;
  enabled: number;
  description: string | null;
  /** JSON of the flat event filter object, `payment_order` and `min_confirmations` included. */
  filters: string;
  /** Most deliveries a second to it (0: no limit); null: the config's delivery.max_rps. */
  max_rps: number | null;
  /** AES-256-GCM sealed `whsec_…` string. */
  secret_enc: string;
  /** The secret a rotation replaced, sealed like the current one; it signs beside it until the expiry below. */
  previous_secret_enc: string | null;
  /** When the previous secret stops signing (ms); null with no previous secret. */
  previous_secret_expires_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface ApiKeysTable {
  api_key: string;
  account_id: string;
  /** AES-256-GCM sealed secret. */
  secret_enc: string;
  /** JSON array of CIDR strings; empty = any IP. */
  allow_ips: string;
  label: string | null;
  created_at: number;
  revoked_at: number | null;
}

export interface UsageDailyTable {
  account_id: string;
  /** UTC day, YYYY-MM-DD. */
  day: string;
  credits: number;
  deliveries: number;
  events: number;
  /** JSON-RPC calls answered (by the node or the cache) on this day. */
  rpc_calls: Generated<number>;
}

/** Credits one daemon set aside from an account's balance for /rpc calls and has not charged yet. */
export interface CreditLeasesTable {
  /** The daemon process that holds them (host, pid and a random part). */
  holder: string;
  account_id: string;
  credits: number;
  /** Until when the holder vouches for them (ms); renewed at each flush, taken back after. */
  lease_until: number;
}

/** A monthly credit grant given (`plans set --monthly-credits`); one per account per UTC month. */
export interface CreditGrantsTable {
  account_id: string;
  /** UTC month, YYYY-MM. */
  month: string;
  plan: string;
  credits: number;
  granted_at: number;
}

export interface WatchesTable {
  id: string;
  account_id: string;
  network: string;
  address: string;
  created_at: number;
}

/** How many addresses an account watches (watch/watches.ts keeps it with its watches); no row: none. */
export interface WatchCountsTable {
  account_id: string;
  watches: number;
}

export interface BlocksTable {
  network: string;
  hash: string;
  height: number;
  parent_hash: string | null;
  timestamp: number | null;
  tx_count: number;
  created_at: number;
  /** `canonical`, `orphaned` (replaced by a reorg) or `rewound` (set aside by `follow rewind`). */
  status: Generated<BlockStatus>;
}

export type BlockStatus = "canonical" | "orphaned" | "rewound";

export interface EventsTable {
  seq: Generated<number>;
  id: string;
  /** The owning account; `*` for a block event, stored once and shared through block_subscriptions. */
  account_id: string;
  type: string;
  network: string;
  watch_id: string | null;
  /** Makes one event per (watch, tx, movement, direction) or per (network, block). */
  dedupe_key: string;
  /** The flat JSON body, exactly as listed and delivered. */
  body: string;
  created_at: number;
  /** The block the event belongs to (null only for rows older than reorg support with no block in the body). */
  block_height: number | null;
  block_hash: string | null;
}

/**
 * An account received the shared block events (events with account_id `*`) of a network whose seq
 * is in [from_seq, until_seq): it watched an address there when those blocks were ingested.
 */
export interface BlockSubscriptionsTable {
  account_id: string;
  network: string;
  from_seq: number;
  /** Null while the account still watches the network. */
  until_seq: number | null;
}

export interface DeliveriesTable {
  id: string;
  account_id: string;
  /** The endpoint it goes to; null: the account's payments URL (a payment-order webhook), signed with the default endpoint's secret. */
  endpoint_id: string | null;
  /** `event` (address watch), `payment` (payment order), `test`. */
  kind: string;
  /** payment · payout · other · block · payment_order — decides the price and the route. */
  event_type: string;
  network: string;
  event_id: string | null;
  payment_id: string | null;
  /** Position in the order's lifecycle; deliveries of one payment go out in this order. */
  sequence: number | null;
  status: string;
  attempts: number;
  next_attempt_at: number;
  lease_until: number | null;
  last_status_code: number | null;
  last_error: string | null;
  credits_charged: number;
  created_at: number;
  updated_at: number;
  completed_at: number | null;
  /** While `held`: the canonical height the tip must reach before the row becomes `pending`. */
  hold_until_height: number | null;
  /** 1 for a delivery queued by an events replay: every attempt carries `X-Webhook-Replay: true`. */
  replay: Generated<number>;
}

/**
 * The exact bytes a delivery sends, apart from its row: written once when it is queued, never
 * updated, deleted with the row. A claim's lease and a settlement update the outbox row, which
 * SQLite rewrites whole (PostgreSQL writes a new version of it): a block event's body (its
 * transactions' hashes, several KB) was copied twice on every delivery.
 */
export interface DeliveryBodiesTable {
  delivery_id: string;
  body: string;
}

export interface DeliveryAttemptsTable {
  id: Generated<number>;
  delivery_id: string;
  attempt: number;
  url: string | null;
  started_at: number;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  response_snippet: string | null;
}

export interface PaymentsTable {
  id: string;
  account_id: string;
  order_id: string;
  network: string;
  address: string;
  asset: string | null;
  decimals: number;
  amount_raw: string;
  received_raw: string;
  confirmed_raw: string;
  status: string;
  tx_hash: string | null;
  expires_at: number;
  /** JSON of the stored AML screening result, null until screened. */
  aml: string | null;
  created_at: number;
  updated_at: number;
  /** The payment wallet the address was derived from, and its index; both null for an address the client gave. */
  wallet_id: string | null;
  derivation_index: number | null;
  /** The random part of the order's checkout page address (payments/checkout-token.ts). */
  checkout_token: string;
  /** SHA-256 (hex) of `checkout_token`: what the page looks the order up by. */
  checkout_key: string;
  /** The merchant's words for the payer, shown on the checkout page (at most 200 characters). */
  description: string | null;
  /** Where the checkout page's "Back to shop" link goes once the order is final. */
  redirect_url: string | null;
}

export interface PaymentWalletsTable {
  id: string;
  account_id: string;
  network: string;
  /** SHA-256 of the key's kind, branch, chain code and public key: the same key put again is found by it. */
  key_id: string;
  /** The key's canonical text, sealed under the master key. */
  key_sealed: string;
  kind: string;
  fingerprint: string;
  gap_limit: number;
  next_index: number;
  /** The highest index that received a payment; null while none has. */
  last_paid_index: number | null;
  /** The unused tail when the last wallet_gap notice was written; 0 since the last payment. */
  gap_notice_tail: number;
  /** 1 for the account's wallet on the network; 0 once removed or replaced (kept, so its indices are never reused). */
  active: number;
  created_at: number;
  updated_at: number;
}

export interface PaymentTransfersTable {
  id: Generated<number>;
  payment_id: string;
  tx_hash: string;
  movement: number;
  block_hash: string;
  block_height: number;
  sender: string | null;
  amount_raw: string;
  confirmed: number;
  /** 1 when it arrived after the order reached a terminal state (recorded, never reopens). */
  late: number;
  created_at: number;
}

export interface AmlJobsTable {
  payment_id: string;
  network: string;
  address: string;
  tx_hash: string | null;
  attempts: number;
  next_attempt_at: number;
  lease_until: number | null;
  last_error: string | null;
  created_at: number;
}

/** A one-time cabinet sign-in link (`chainwatch cabinet link`); the token is kept only as its SHA-256. */
export interface CabinetLinksTable {
  token_hash: string;
  account_id: string;
  expires_at: number;
  /** Set when the link is redeemed: a link signs in once. */
  used_at: number | null;
  created_at: number;
}

/** A cabinet browser session; the cookie's token is kept only as its SHA-256. */
export interface CabinetSessionsTable {
  token_hash: string;
  account_id: string;
  expires_at: number;
  created_at: number;
}

/** What a token contract's decimals() answered on a network (null: no usable answer). */
export interface TokenDecimalsTable {
  network: string;
  /** Contract address, lower-case. */
  address: string;
  decimals: number | null;
  created_at: number;
}

/** A followed network as its daemon last saw it; read by `chainwatch follow status`. */
export interface FollowerStateTable {
  network: string;
  upstream: string | null;
  node_height: number | null;
  /** following · catching_up · stopped · error */
  state: string;
  last_error: string | null;
  blocks_per_second: number;
  /** 1 after `follow rewind`: a follower stopped by a deep reorg starts again. */
  resume_requested: number;
  updated_at: number;
  /** The daemon leading the follower (`host:port pid N`), as it wrote the row; null before migration 0014. */
  leader: string | null;
  /** Since when confirmations wait for the upstream quorum (ms); null while none waits. */
  quorum_waiting_since: number | null;
  /** The height the waiting quorum is asked about; null while none waits. */
  quorum_height: number | null;
}

/** Per network with an upstream quorum: the highest height whose stored hash the quorum returned (written by ingest/). */
export interface QuorumHeightsTable {
  network: string;
  height: number;
  updated_at: number;
}

/** A lead's fencing epoch (db/leadership.ts): one up on every take-over; the leader's writes check it. */
export interface LeadEpochsTable {
  /** `follower:<network>` */
  name: string;
  epoch: number;
}

/** Facts about the database itself (`migrated_by`: the chainwatch version that last migrated it). */
export interface MetaTable {
  key: string;
  value: string;
}

/** An output that paid a watched address on a UTXO chain, and the spend of it once seen (ingest/spent-outputs.ts). */
export interface WatchedOutputsTable {
  network: string;
  txid: string;
  vout: number;
  address: string;
  value_raw: string;
  block_hash: string;
  height: number;
  spent_txid: string | null;
  spent_block_hash: string | null;
}

/** A payment to an order address seen in a UTXO node's mempool, until it is mined or gone (payments/mempool.ts). */
export interface MempoolTransfersTable {
  payment_id: string;
  tx_hash: string;
  network: string;
  amount_raw: string;
  created_at: number;
}

/** A webhook endpoint's current run of failures and its last success (webhooks/health-record.ts). */
export interface EndpointHealthTable {
  endpoint_id: string;
  /** The first failed attempt of the current run of failures (ms); null while the last attempt succeeded. */
  failing_since: number | null;
  last_success_at: number | null;
  /** The last failed attempt's HTTP status and error class, while failing. */
  last_status_code: number | null;
  last_error: string | null;
  /** When the run of failures switched the endpoint off; null once it is enabled again. */
  disabled_at: number | null;
  updated_at: number;
}

/** A message for the account holder (notices/notices.ts): an endpoint disabled, a delivery failed, deliveries held for credits, a wallet's gap. */
export interface NoticesTable {
  id: string;
  account_id: string;
  type: string;
  message: string;
  delivery_id: string | null;
  /** The endpoint an `endpoint_disabled` notice is about. */
  endpoint_id: string | null;
  created_at: number;
  /** When the notice's cause ended (ms); null while it stands. */
  resolved_at: number | null;
}

export interface DB {
  plans: PlansTable;
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  usage_daily: UsageDailyTable;
  credit_grants: CreditGrantsTable;
  credit_leases: CreditLeasesTable;
  watches: WatchesTable;
  watch_counts: WatchCountsTable;
  blocks: BlocksTable;
  events: EventsTable;
  block_subscriptions: BlockSubscriptionsTable;
  deliveries: DeliveriesTable;
  delivery_bodies: DeliveryBodiesTable;
  delivery_attempts: DeliveryAttemptsTable;
  payments: PaymentsTable;
  payment_wallets: PaymentWalletsTable;
  payment_transfers: PaymentTransfersTable;
  aml_jobs: AmlJobsTable;
  cabinet_links: CabinetLinksTable;
  cabinet_sessions: CabinetSessionsTable;
  token_decimals: TokenDecimalsTable;
  follower_state: FollowerStateTable;
  quorum_heights: QuorumHeightsTable;
  meta: MetaTable;
  lead_epochs: LeadEpochsTable;
  watched_outputs: WatchedOutputsTable;
  mempool_transfers: MempoolTransfersTable;
  webhook_endpoints: WebhookEndpointsTable;
  endpoint_health: EndpointHealthTable;
  notices: NoticesTable;
}

export type Plan = Selectable<PlansTable>;
export type Account = Selectable<AccountsTable>;
export type WebhookEndpoint = Selectable<WebhookEndpointsTable>;
export type Watch = Selectable<WatchesTable>;
export type NewEvent = Insertable<EventsTable>;
/** An outbox row with the body it sends (kept in `delivery_bodies`). */
export type Delivery = Selectable<DeliveriesTable> & { body: string };
export type Payment = Selectable<PaymentsTable>;
export type PaymentWallet = Selectable<PaymentWalletsTable>;
