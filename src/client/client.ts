import { followEvents } from "./events.ts";
import { checkClientOptions } from "./options.ts";
import { createTransport, type TransportOptions } from "./transport.ts";
import type {
  Account,
  AddressWatchAccount,
  AddWatchBatchRequest,
  AddWatchRequest,
  CreatedWebhookEndpoint,
  CreatePaymentRequest,
  CreateWebhookEndpointRequest,
  DeleteWatchBatchRequest,
  DeleteWatchRequest,
  Endpoints,
  EventList,
  EventsQuery,
  NoticeList,
  NoticesQuery,
  PaymentList,
  PaymentOrder,
  PaymentSettings,
  PaymentsQuery,
  PaymentWallet,
  PaymentWalletDeleted,
  PaymentWalletList,
  PutPaymentWalletRequest,
  RecoverRequest,
  RecoverResult,
  ReplayRequest,
  ReplayResult,
  RotatedEndpointSecret,
  RotatedWebhookSecret,
  RotateWebhookSecretRequest,
  TestQueued,
  UpdateWebhookEndpointRequest,
  Usage,
  UsageQuery,
  Watch,
  WatchBatchResult,
  WatchDeleted,
  WatchDeleteBatchResult,
  WatchList,
  WebhookEndpoint,
  WebhookEndpointDeleted,
  WebhookEndpointList,
  WebhookHealth,
  WebhookSettings,
  WebhookTestRequest,
  WebhookUpdateRequest,
} from "./types.ts";

export type ClientOptions = TransportOptions;

/**
 * A client of one API key: a method for every `/v1` endpoint, named by its OpenAPI operation id,
 * each signed, each answering the response body as the daemon sends it, or throwing a
 * ChainwatchError with its status and message. Options that cannot work (an unset secret, a
 * webhook secret for the key's) throw a TypeError here, naming the option.
 */
export function createClient(options: ClientOptions) {
  const send = createTransport(checkClientOptions(options));
  const listEvents = (query: EventsQuery = {}) => send<EventList>({ method: "GET", path: "/v1/address-watch/events", query });
  const endpoint = (id: string, rest = "") => `/v1/webhooks/endpoints/${encodeURIComponent(id)}${rest}`;
  return {
    /** GET /v1/account: plan, credits and address slots. */
    getAccount: () => send<Account>({ method: "GET", path: "/v1/account" }),
    /** GET /v1/account/usage: exactly `days` UTC days (default 30), oldest first, today last. */
    getUsage: (query: UsageQuery = {}) => send<Usage>({ method: "GET", path: "/v1/account/usage", query }),
    /** GET /v1/account/notices: a page of notices, newest first; pass `next_after` as `after` for older ones. */
    listNotices: (query: NoticesQuery = {}) => send<NoticeList>({ method: "GET", path: "/v1/account/notices", query }),
    /** GET /v1/endpoints: the networks this daemon serves. */
    listEndpoints: () => send<Endpoints>({ method: "GET", path: "/v1/endpoints" }),
    /** GET /v1/address-watch/account: slots used, webhook state and the number of stored events. */
    getAddressWatchAccount: () => send<AddressWatchAccount>({ method: "GET", path: "/v1/address-watch/account" }),
    /** POST /v1/address-watch/addresses: watch an address; the same one again answers the same record. */
    addWatch: (body: AddWatchRequest) => send<Watch>({ method: "POST", path: "/v1/address-watch/addresses", body }),
    /** GET /v1/address-watch/addresses: every watch, oldest first. */
    listWatches: () => send<WatchList>({ method: "GET", path: "/v1/address-watch/addresses" }),
    /** DELETE /v1/address-watch/addresses: stop watching, freeing the slot; its events stay listed. */
    deleteWatch: (body: DeleteWatchRequest) => send<WatchDeleted>({ method: "DELETE", path: "/v1/address-watch/addresses", body }),
    /** POST /v1/address-watch/addresses/batch: watch up to 1,000 addresses; `results` answers each in order, a record or `{ error }`. */
    addWatches: (body: AddWatchBatchRequest) => send<WatchBatchResult>({ method: "POST", path: "/v1/address-watch/addresses/batch", body }),
    /** DELETE /v1/address-watch/addresses/batch: stop watching up to 1,000 watches; `results` answers each id in order. */
    deleteWatches: (body: DeleteWatchBatchRequest) => send<WatchDeleteBatchResult>({ method: "DELETE", path: "/v1/address-watch/addresses/batch", body }),
    /** GET /v1/address-watch/events: one page, oldest first; `next_after` is the next page's `after`. */
    listEvents,
    /** Every event the filters select, across pages: `for await (const event of client.events({ network: "eth" }))`. */
    events: (query: EventsQuery = {}) => followEvents(listEvents, query),
    /** POST /v1/address-watch/events/replay: stored events sent again as new deliveries; continue with `after: next_after`. */
    replayEvents: (body: ReplayRequest) => send<ReplayResult>({ method: "POST", path: "/v1/address-watch/events/replay", body }),
    /** GET /v1/address-watch/webhook: URL, enabled, event filters, egress IPs, delivery rate. */
    getWebhook: () => send<WebhookSettings>({ method: "GET", path: "/v1/address-watch/webhook" }),
    /** PUT /v1/address-watch/webhook: `events` keys given replace, keys left out keep their value. */
    updateWebhook: (body: WebhookUpdateRequest) => send<WebhookSettings>({ method: "PUT", path: "/v1/address-watch/webhook", body }),
    /** GET /v1/address-watch/webhook/health: the endpoint's run of failures, pending and failed counts. */
    getWebhookHealth: () => send<WebhookHealth>({ method: "GET", path: "/v1/address-watch/webhook/health" }),
    /**
     * POST /v1/address-watch/webhook/secret/rotate: a new `whsec_` secret, in this answer only; the
     * previous one keeps signing beside it for `grace_seconds` (default a day).
     */
    rotateWebhookSecret: (body: RotateWebhookSecretRequest = {}) =>
      send<RotatedWebhookSecret>({ method: "POST", path: "/v1/address-watch/webhook/secret/rotate", body }),
    /** POST /v1/address-watch/webhook/test: queue a signed test delivery; answers before the receiver is called. */
    testWebhook: (body: WebhookTestRequest) => send<TestQueued>({ method: "POST", path: "/v1/address-watch/webhook/test", body }),
    /** POST /v1/address-watch/webhook/recover: re-queue the failed deliveries queued in [since, until). */
    recoverDeliveries: (body: RecoverRequest) => send<RecoverResult>({ method: "POST", path: "/v1/address-watch/webhook/recover", body }),
    /** POST /v1/webhooks/endpoints: add a webhook endpoint; its `secret` is in this answer (and a rotation's) only. */
    createWebhookEndpoint: (body: CreateWebhookEndpointRequest) => send<CreatedWebhookEndpoint>({ method: "POST", path: "/v1/webhooks/endpoints", body }),
    /** GET /v1/webhooks/endpoints: the account's webhook endpoints, oldest (the default) first. */
    listWebhookEndpoints: () => send<WebhookEndpointList>({ method: "GET", path: "/v1/webhooks/endpoints" }),
    /** GET /v1/webhooks/endpoints/{endpoint_id}: one endpoint. */
    getWebhookEndpoint: (endpointId: string) => send<WebhookEndpoint>({ method: "GET", path: endpoint(endpointId) }),
    /** PATCH /v1/webhooks/endpoints/{endpoint_id}: change only the keys given (`events` keys given replace, the others stay). */
    updateWebhookEndpoint: (endpointId: string, body: UpdateWebhookEndpointRequest) => send<WebhookEndpoint>({ method: "PATCH", path: endpoint(endpointId), body }),
    /** DELETE /v1/webhooks/endpoints/{endpoint_id}: remove an endpoint (an account keeps at least one). */
    deleteWebhookEndpoint: (endpointId: string) => send<WebhookEndpointDeleted>({ method: "DELETE", path: endpoint(endpointId) }),
    /** POST /v1/webhooks/endpoints/{endpoint_id}/test: queue a signed test delivery to the endpoint, even while it is disabled. */
    testWebhookEndpoint: (endpointId: string, body: WebhookTestRequest) => send<TestQueued>({ method: "POST", path: endpoint(endpointId, "/test"), body }),
    /** POST /v1/webhooks/endpoints/{endpoint_id}/secret/rotate: a new secret, in this answer only; the previous one signs beside it for `grace_seconds`. */
    rotateWebhookEndpointSecret: (endpointId: string, body: RotateWebhookSecretRequest = {}) =>
      send<RotatedEndpointSecret>({ method: "POST", path: endpoint(endpointId, "/secret/rotate"), body }),
    /** GET /v1/webhooks/endpoints/{endpoint_id}/health: the endpoint's run of failures, pending and failed counts. */
    getWebhookEndpointHealth: (endpointId: string) => send<WebhookHealth>({ method: "GET", path: endpoint(endpointId, "/health") }),
    /** POST /v1/webhooks/endpoints/{endpoint_id}/recover: re-queue the endpoint's failed deliveries queued in [since, until). */
    recoverWebhookEndpoint: (endpointId: string, body: RecoverRequest) => send<RecoverResult>({ method: "POST", path: endpoint(endpointId, "/recover"), body }),
    /** POST /v1/webhooks/endpoints/{endpoint_id}/replay: stored events sent again to the endpoint; continue with `after: next_after`. */
    replayWebhookEndpoint: (endpointId: string, body: ReplayRequest) => send<ReplayResult>({ method: "POST", path: endpoint(endpointId, "/replay"), body }),
    /** POST /v1/payments: create a payment order. */
    createPayment: (body: CreatePaymentRequest) => send<PaymentOrder>({ method: "POST", path: "/v1/payments", body }),
    /** GET /v1/payments: orders, newest first, optionally by `order_id` or `status`. */
    listPayments: (query: PaymentsQuery = {}) => send<PaymentList>({ method: "GET", path: "/v1/payments", query }),
    /** GET /v1/payments/{payment_id}: one order. */
    getPayment: (paymentId: string) => send<PaymentOrder>({ method: "GET", path: `/v1/payments/${encodeURIComponent(paymentId)}` }),
    /** GET /v1/payments/settings: where payment-order webhooks go. */
    getPaymentSettings: () => send<PaymentSettings>({ method: "GET", path: "/v1/payments/settings" }),
    /** PUT /v1/payments/settings: set (or, with null, clear) the payments webhook URL. */
    updatePaymentSettings: (body: PaymentSettings) => send<PaymentSettings>({ method: "PUT", path: "/v1/payments/settings", body }),
    /** GET /v1/payments/wallets: the account's payment wallets, one per network. */
    listPaymentWallets: () => send<PaymentWalletList>({ method: "GET", path: "/v1/payments/wallets" }),
    /** PUT /v1/payments/wallets/{network}: set the payment wallet orders without an address take addresses from. */
    putPaymentWallet: (network: string, body: PutPaymentWalletRequest) =>
      send<PaymentWallet>({ method: "PUT", path: `/v1/payments/wallets/${encodeURIComponent(network)}`, body }),
    /** DELETE /v1/payments/wallets/{network}: stop deriving addresses on a network; orders made keep theirs. */
    deletePaymentWallet: (network: string) => send<PaymentWalletDeleted>({ method: "DELETE", path: `/v1/payments/wallets/${encodeURIComponent(network)}` }),
    /**
     * Any signed call, for an endpoint this SDK does not name yet: the parsed body of a 2xx answer,
     * or a ChainwatchError. 429s are retried like every other call.
     */
    request: <T = unknown>(method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE", path: string, init: { query?: Record<string, string | number | undefined>; body?: unknown } = {}) =>
      send<T>({ method, path, ...init }),
  };
}

/** What `createClient` returns. */
export type ChainwatchClient = ReturnType<typeof createClient>;
