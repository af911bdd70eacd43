import type { Static } from "@sinclair/typebox";
import type * as S from "../http/openapi/schemas.ts";
import type { CreateOrderBody } from "../payments/create-order.ts";
import type { PaymentSettingsSchema } from "../payments/settings.ts";
import type { PutWalletBody } from "../payments/wallets/put-wallet.ts";
import type { DeleteWatchSchema } from "../watch/unwatch-address.ts";
import type { AddWatchSchema } from "../watch/watch-address.ts";
import type { AddWatchBatchSchema, DeleteWatchBatchSchema } from "../watch/watch-batch.ts";
import type { RotateSecretSchema } from "../webhooks/endpoint-secret.ts";
import type { RecoverSchema } from "../webhooks/recover.ts";
import type { ReplaySchema } from "../webhooks/replay.ts";
import type { TestEvent } from "../webhooks/samples.ts";
import type { EndpointCreateSchema, EndpointPatchSchema, WebhookUpdateSchema } from "../webhooks/settings.ts";
import type { WebhookTestSchema } from "../webhooks/test-endpoint.ts";

// Every request and response type of the SDK is read off the TypeBox schemas the daemon itself
// checks bodies with and documents its answers with (src/http/openapi/schemas.ts and the use
// cases' request schemas), so the SDK cannot drift from the API. These are type-only imports:
// they vanish when the SDK is compiled, and the SDK runs with nothing but fetch and Web Crypto.

// Responses.
export type Account = Static<typeof S.Account>;
export type Usage = Static<typeof S.Usage>;
export type Notice = Static<typeof S.Notice>;
export type NoticeList = Static<typeof S.NoticeList>;
export type Endpoints = Static<typeof S.Endpoints>;
export type AddressWatchAccount = Static<typeof S.AddressWatchAccount>;
export type Watch = Static<typeof S.Watch>;
export type WatchList = Static<typeof S.WatchList>;
export type WatchDeleted = Static<typeof S.WatchDeleted>;
export type WatchBatchResult = Static<typeof S.WatchBatchResult>;
export type WatchDeleteBatchResult = Static<typeof S.WatchDeleteBatchResult>;
export type EventFilters = Static<typeof S.EventFilters>;
export type WebhookSettings = Static<typeof S.WebhookSettings>;
export type WebhookHealth = Static<typeof S.WebhookHealth>;
export type RotatedWebhookSecret = Static<typeof S.RotatedWebhookSecret>;
export type EndpointFilters = Static<typeof S.EndpointFilters>;
export type WebhookEndpoint = Static<typeof S.Endpoint>;
export type CreatedWebhookEndpoint = Static<typeof S.EndpointCreated>;
export type WebhookEndpointList = Static<typeof S.EndpointList>;
export type WebhookEndpointDeleted = Static<typeof S.EndpointDeleted>;
export type RotatedEndpointSecret = Static<typeof S.RotatedEndpointSecret>;
export type TestQueued = Static<typeof S.TestQueued>;
export type RecoverResult = Static<typeof S.RecoverResult>;
export type ReplayResult = Static<typeof S.ReplayResult>;
export type PaymentOrder = Static<typeof S.PaymentOrder>;
export type PaymentList = Static<typeof S.PaymentList>;
export type PaymentStatus = PaymentOrder["status"];
export type PaymentSettings = Static<typeof PaymentSettingsSchema>;
export type PaymentWallet = Static<typeof S.PaymentWallet>;
export type PaymentWalletList = Static<typeof S.PaymentWalletList>;
export type PaymentWalletDeleted = Static<typeof S.PaymentWalletDeleted>;
export type LatePayment = Static<typeof S.LatePayment>;

// Event and webhook bodies.
export type WalletEvent = Static<typeof S.WalletEvent>;
export type BlockEvent = Static<typeof S.BlockEvent>;
/** An item of GET /v1/address-watch/events: byte for byte the body of its address-watch webhook. */
export type WatchEvent = WalletEvent | BlockEvent;
export type EventList = Static<typeof S.EventList>;
export type EventType = WatchEvent["type"];
export type PaymentOrderWebhook = Static<typeof S.PaymentOrderWebhook>;
export type LatePaymentWebhook = Static<typeof S.LatePaymentWebhook>;
/** Every body a chainwatch webhook carries: an address-watch event, a payment order's move, or a late payment to a wallet order. */
export type WebhookEvent = WatchEvent | PaymentOrderWebhook | LatePaymentWebhook;

// Request bodies.
export type AddWatchRequest = Static<typeof AddWatchSchema>;
export type DeleteWatchRequest = Static<typeof DeleteWatchSchema>;
export type AddWatchBatchRequest = Static<typeof AddWatchBatchSchema>;
export type DeleteWatchBatchRequest = Static<typeof DeleteWatchBatchSchema>;
/** The PUT body. `egress_ips` is read-only and ignored, so a GET answer can be sent back as it is. */
export type WebhookUpdateRequest = Static<typeof WebhookUpdateSchema>;
/** The schema takes `event` as a checked string; the SDK narrows it to the kinds the daemon samples. */
export type WebhookTestRequest = Omit<Static<typeof WebhookTestSchema>, "event"> & { event: TestEvent };
export type RotateWebhookSecretRequest = Static<typeof RotateSecretSchema>;
export type CreateWebhookEndpointRequest = Static<typeof EndpointCreateSchema>;
export type UpdateWebhookEndpointRequest = Static<typeof EndpointPatchSchema>;
export type RecoverRequest = Static<typeof RecoverSchema>;
export type ReplayRequest = Static<typeof ReplaySchema>;
export type CreatePaymentRequest = Static<typeof CreateOrderBody>;
export type PutPaymentWalletRequest = Static<typeof PutWalletBody>;

// Query strings. The routes declare these as plain strings and check them in their use cases, so
// they are typed here, by what those use cases accept.
export type UsageQuery = { /** 1..90, default 30. */ days?: number };
export type NoticesQuery = { /** 1..100, default 20. */ limit?: number; /** The last id of the previous page. */ after?: string };
export type EventsQuery = {
  /** An event id: only later events are listed. */
  after?: string;
  /** Events per page, 1..1000, default 100. */
  limit?: number;
  type?: EventType;
  network?: string;
  watch_id?: string;
};
export type PaymentsQuery = { order_id?: string; status?: PaymentStatus; /** 1..1000, default 100. */ limit?: number };
