import { SCHEMAS } from "./schemas.ts";

const header = (name: string, description: string, required = true) => ({ name, in: "header", required, description, schema: { type: "string" } });

/** The headers of every webhook POST (docs/webhooks.md). */
const WEBHOOK_HEADERS = [
  header("X-Webhook-Id", "The delivery id (dlv_…), the same on every retry: deduplicate on it"),
  header("X-Timestamp", "Unix seconds when this attempt was signed"),
  header("X-Signature", "Lower-case hex HMAC-SHA256 over `<X-Timestamp>.<raw body>`, keyed with the endpoint's whsec_ secret (base64-decoded after the prefix); after a rotation, always the new secret"),
  header("webhook-id", "Standard Webhooks: the delivery id"),
  header("webhook-timestamp", "Standard Webhooks: Unix seconds"),
  header(
    "webhook-signature",
    "Standard Webhooks: `v1,<base64 HMAC-SHA256 over <id>.<timestamp>.<body>>`; during a rotation's grace period two, space-separated: `v1,<by the previous secret> v1,<by the new one>`",
  ),
  header("X-Webhook-Test", "`true` on test deliveries, which are never billed", false),
  header("X-Webhook-Replay", "`true` on deliveries of an events replay (POST /v1/address-watch/events/replay, POST /v1/webhooks/endpoints/{endpoint_id}/replay): a stored event sent again under a new delivery id", false),
];

const RECEIVED = {
  "2XX": { description: "Received. Answer within delivery.timeout_ms; anything else (3xx included) is retried with backoff." },
};

const webhook = (summary: string, description: string, schema: unknown) => ({
  post: { summary, description, parameters: WEBHOOK_HEADERS, requestBody: { required: true, content: { "application/json": { schema } } }, responses: RECEIVED },
});

/**
 * Where the API answers: the operator's public address when the config names one
 * (`cabinet.public_url`, set behind a proxy), and always "/", the daemon the document was read from.
 */
function servers(publicUrl: string): { url: string; description: string }[] {
  const here = { url: "/", description: "This daemon: the address this document was fetched from" };
  if (publicUrl === "") return [here];
  return [{ url: publicUrl.replace(/\/+$/, ""), description: "The public address (cabinet.public_url)" }, here];
}

/**
 * Everything in the OpenAPI document that is not derived from the routes: the servers, info, the signed-API
 * security schemes (the default for every operation), the component schemas and the webhooks
 * chainwatch sends (OpenAPI 3.1 `webhooks`).
 */
export function openapiDocumentation(version: string, config: { cabinet: { public_url: string } }) {
  return {
    servers: servers(config.cabinet.public_url),
    info: {
      title: "chainwatch",
      version,
      description:
        "Signed address-watch, webhook and payment-order API. Every /v1 request carries X-Api-Key, X-Timestamp (Unix seconds, ±300 s) and X-Signature: hex HMAC-SHA256 under the key's secret of four lines joined by \\n — the timestamp, the upper-case method, the path without query string, and the hex SHA-256 of the raw body.",
    },
    tags: [
      { name: "account", description: "Plan, credits and usage" },
      { name: "address-watch", description: "Watched addresses, their events and the webhook (the account's default endpoint)" },
      { name: "webhooks", description: "The account's webhook endpoints, each with its own URL, filters, rate, secret and health" },
      { name: "payments", description: "Payment orders and their webhooks" },
      { name: "checkout", description: "The payers' public checkout pages, by the token in an order's checkout_url; no authentication" },
      { name: "ingest", description: "The indexer feed" },
      { name: "operations", description: "Health and metrics, without authentication" },
    ],
    components: {
      securitySchemes: {
        ApiKey: { type: "apiKey" as const, in: "header" as const, name: "X-Api-Key" },
        Timestamp: { type: "apiKey" as const, in: "header" as const, name: "X-Timestamp" },
        Signature: { type: "apiKey" as const, in: "header" as const, name: "X-Signature" },
        IngestToken: { type: "http" as const, scheme: "bearer", description: "`[ingest] token` of the config" },
      },
      // TypeBox schemas are JSON Schema already; the round trip drops TypeBox's symbol keys.
      schemas: JSON.parse(JSON.stringify(SCHEMAS)),
    },
    security: [{ ApiKey: [], Timestamp: [], Signature: [] }],
    webhooks: {
      "address-watch-event": webhook(
        "Wallet activity or a new block on a watched network",
        "Sent to every enabled webhook endpoint whose filters take the event, as a delivery of its own signed with that endpoint's secret. The same body is an item of GET /v1/address-watch/events.",
        { oneOf: [{ $ref: "#/components/schemas/WalletEvent" }, { $ref: "#/components/schemas/BlockEvent" }] },
      ),
      "payment-order": webhook(
        "A payment order entered a new state",
        "Sent to payments.webhook_url (signed with the default endpoint's secret), else to every enabled webhook endpoint with payment_order on; the address-watch filters do not apply. The webhooks of one order arrive at each endpoint one at a time, in lifecycle order. A payment to a wallet's address after its order ended is announced as a late_payment.",
        { oneOf: [{ $ref: "#/components/schemas/PaymentOrderWebhook" }, { $ref: "#/components/schemas/LatePaymentWebhook" }] },
      ),
    },
  };
}
