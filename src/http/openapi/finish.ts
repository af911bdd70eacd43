import { EXAMPLES, INLINE_EXAMPLES } from "./examples.ts";

// The last touches on the document the OpenAPI plugin builds from the routes: readable operation
// ids (a client generator turns them into method names: `client.addWatch(…)`, not
// `postV1AddressWatchAddresses`) and an example beside every request body and success response.

/** The operation id of every operation, by `METHOD /path` as the document spells it. */
export const OPERATION_IDS: Record<string, string> = {
  "GET /healthz": "health",
  "GET /metrics": "metrics",
  "POST /ingest/blocks": "ingestBlocks",
  "GET /v1/account": "getAccount",
  "GET /v1/account/usage": "getUsage",
  "GET /v1/account/notices": "listNotices",
  "GET /v1/endpoints": "listEndpoints",
  "GET /v1/address-watch/account": "getAddressWatchAccount",
  "POST /v1/address-watch/addresses": "addWatch",
  "GET /v1/address-watch/addresses": "listWatches",
  "DELETE /v1/address-watch/addresses": "deleteWatch",
  "POST /v1/address-watch/addresses/batch": "addWatches",
  "DELETE /v1/address-watch/addresses/batch": "deleteWatches",
  "GET /v1/address-watch/events": "listEvents",
  "POST /v1/address-watch/events/replay": "replayEvents",
  "GET /v1/address-watch/webhook": "getWebhook",
  "PUT /v1/address-watch/webhook": "updateWebhook",
  "GET /v1/address-watch/webhook/health": "getWebhookHealth",
  "POST /v1/address-watch/webhook/test": "testWebhook",
  "POST /v1/address-watch/webhook/recover": "recoverDeliveries",
  "POST /v1/address-watch/webhook/secret/rotate": "rotateWebhookSecret",
  "POST /v1/webhooks/endpoints": "createWebhookEndpoint",
  "GET /v1/webhooks/endpoints": "listWebhookEndpoints",
  "GET /v1/webhooks/endpoints/{endpoint_id}": "getWebhookEndpoint",
  "PATCH /v1/webhooks/endpoints/{endpoint_id}": "updateWebhookEndpoint",
  "DELETE /v1/webhooks/endpoints/{endpoint_id}": "deleteWebhookEndpoint",
  "POST /v1/webhooks/endpoints/{endpoint_id}/test": "testWebhookEndpoint",
  "POST /v1/webhooks/endpoints/{endpoint_id}/secret/rotate": "rotateWebhookEndpointSecret",
  "GET /v1/webhooks/endpoints/{endpoint_id}/health": "getWebhookEndpointHealth",
  "POST /v1/webhooks/endpoints/{endpoint_id}/recover": "recoverWebhookEndpoint",
  "POST /v1/webhooks/endpoints/{endpoint_id}/replay": "replayWebhookEndpoint",
  "POST /v1/payments": "createPayment",
  "GET /v1/payments": "listPayments",
  "GET /v1/payments/{payment_id}": "getPayment",
  "GET /v1/payments/settings": "getPaymentSettings",
  "PUT /v1/payments/settings": "updatePaymentSettings",
  "GET /v1/payments/wallets": "listPaymentWallets",
  "PUT /v1/payments/wallets/{network}": "putPaymentWallet",
  "DELETE /v1/payments/wallets/{network}": "deletePaymentWallet",
  "POST /rpc/{network}": "rpcCall",
  "POST /rpc/{network}/{api_key}": "rpcCallWithKeyInPath",
};

/**
 * A readable camelCase id for an operation missing from the table (a route added since): the
 * method and the path's words, `/v1` left out, `{x}` as `ByX` (`POST /v1/foo-bar/{id}` → `postFooBarById`).
 */
export function derivedOperationId(method: string, path: string): string {
  const words = path
    .split("/")
    .filter((s) => s !== "" && s !== "v1")
    .flatMap((s) => (s.startsWith("{") ? ["by", ...s.slice(1, -1).split(/[-_]/)] : s.split(/[-_.]/)));
  return [method.toLowerCase(), ...words.filter(Boolean).map((w) => w[0].toUpperCase() + w.slice(1))].join("");
}

type Json = Record<string, any>;

/** The example a media type object should carry: its named schema's, else the operation's inline one. */
function exampleFor(media: Json, inline: unknown): unknown {
  const ref = media?.schema?.$ref;
  if (typeof ref === "string") return EXAMPLES[ref.split("/").pop() as keyof typeof EXAMPLES];
  return inline;
}

/** Sets `example` on every media type of `content` that has one to show and none yet. */
function addExamples(content: Json | undefined, inline: unknown): void {
  for (const media of Object.values(content ?? {}) as Json[]) {
    if (media.example !== undefined || media.examples !== undefined) continue;
    const example = exampleFor(media, inline);
    if (example !== undefined) media.example = example;
  }
}

/**
 * The document with operation ids from the table (derived for any operation it lacks) and
 * examples on request bodies and 2xx responses. Returns a new document; the input is not changed.
 */
export function finishDocument<D extends { paths?: Json }>(doc: D): D {
  const out = structuredClone(doc);
  for (const [path, item] of Object.entries((out.paths ?? {}) as Json)) {
    for (const [method, op] of Object.entries(item as Json) as [string, Json][]) {
      const key = `${method.toUpperCase()} ${path}`;
      op.operationId = OPERATION_IDS[key] ?? derivedOperationId(method, path);
      const inline = INLINE_EXAMPLES[key];
      addExamples(op.requestBody?.content, inline?.request);
      for (const [status, response] of Object.entries((op.responses ?? {}) as Json)) {
        if (/^2\d\d$/.test(status)) addExamples(response.content, inline?.response);
      }
    }
  }
  return out;
}
