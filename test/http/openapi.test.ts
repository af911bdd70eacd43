import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { TEST_EVENTS } from "../../src/webhooks/samples.ts";
import { createServer } from "../../src/server.ts";
import { SCHEMAS } from "../../src/http/openapi/schemas.ts";
import { openapiDocumentation } from "../../src/http/openapi/document.ts";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";

// Routes that are not operations of the API, each for a reason; every other route the app
// registers must be documented.
const NOT_OPERATIONS: Record<string, string> = {
  "GET /openapi": "the reference page rendered from the document",
  "GET /openapi/json": "the document itself",
  "GET /favicon.ico": "a browser's icon request, answered 204",
  "GET /pay/checkout.js": "the checkout page's script, part of the page",
  "GET /pay/*": "a link under /pay/ that names no page, answered with the not-found page",
};
/** The cabinet's HTML pages and forms are for a browser, not API operations: none is in the document. */
const isCabinet = (route: string) => / \/cabinet(\/|$)/.test(route);

type Json = Record<string, any>;
let td: TestDaemon;
let doc: Json;
let client: TestClient;
let sink: WebhookSink;

beforeAll(async () => {
  // Every optional surface on, so its routes are enumerated too.
  td = await startTestDaemon({ config: { rate_limit: { per_key_rps: 1000 }, cabinet: { enabled: true } } });
  sink = startWebhookSink();
  doc = (await (await fetch(`${td.url}/openapi/json`)).json()) as Json;
  client = await td.client({ credits: 1_000_000 });
});
afterAll(async () => {
  await sink.stop();
  await td.stop();
});

const openapiPath = (path: string) => path.replace(/:([^/]+)/g, "{$1}");
const schemaOf = (ref: string | undefined): TSchema | undefined => (ref ? (SCHEMAS as Record<string, TSchema>)[ref.split("/").pop() as string] : undefined);

/** Every (method, path) the app registers, as `METHOD /path`. */
function registeredRoutes(): string[] {
  const app = createServer(td.daemon.deps);
  return [...new Set(app.routes.map((r) => `${r.method.toUpperCase()} ${r.path}`))].filter((r) => !/^(HEAD|OPTIONS) /.test(r));
}

describe("the OpenAPI document covers the whole API", () => {
  test("every route the app registers is an operation with a summary and its responses", () => {
    const routes = registeredRoutes();
    expect(routes.length).toBeGreaterThan(15);
    const missing: string[] = [];
    for (const route of routes) {
      if (route in NOT_OPERATIONS || isCabinet(route)) continue;
      const [method, path] = route.split(" ");
      const op = doc.paths[openapiPath(path)]?.[method.toLowerCase()];
      if (!op) missing.push(`${route}: not in the document`);
      else if (!op.summary) missing.push(`${route}: no summary`);
      else if (!op.responses || !Object.keys(op.responses).some((s) => /^2/.test(s))) missing.push(`${route}: no success response`);
      // Outside /v1 the default (signed) security rarely holds: such routes must say what they take.
      else if (!path.startsWith("/v1/") && op.security === undefined) missing.push(`${route}: no security stated`);
      else if (path.startsWith("/v1/") && op.security === undefined && !op.responses["401"]) missing.push(`${route}: signed but no 401`);
    }
    expect(missing).toEqual([]);
  });

  test("/healthz and /metrics take no authentication; ingest takes its bearer token", () => {
    expect(doc.paths["/healthz"].get.security).toEqual([]);
    expect(doc.paths["/metrics"].get.security).toEqual([]);
    expect(doc.paths["/ingest/blocks"].post.security).toEqual([{ IngestToken: [] }]);
    expect(doc.security).toEqual([{ ApiKey: [], Timestamp: [], Signature: [] }]);
  });

  test("components.schemas holds the TypeBox schemas and every $ref resolves", () => {
    expect(Object.keys(doc.components.schemas).sort()).toEqual(Object.keys(SCHEMAS).sort());
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]);
    expect(refs.length).toBeGreaterThan(40);
    for (const name of refs) expect(doc.components.schemas[name]).toBeDefined();
  });

  test("webhook bodies are described as OpenAPI 3.1 webhooks", () => {
    expect(doc.openapi).toStartWith("3.1");
    expect(Object.keys(doc.webhooks).sort()).toEqual(["address-watch-event", "payment-order"]);
    expect(doc.webhooks["payment-order"].post.requestBody.content["application/json"].schema).toEqual({
      oneOf: [{ $ref: "#/components/schemas/PaymentOrderWebhook" }, { $ref: "#/components/schemas/LatePaymentWebhook" }],
    });
  });
});

/** Every operation of the document as [`METHOD /path`, operation]. */
const operations = (): [string, Json][] =>
  Object.entries(doc.paths as Json).flatMap(([path, item]) => Object.entries(item as Json).map(([m, op]) => [`${m.toUpperCase()} ${path}`, op as Json] as [string, Json]));

describe("the OpenAPI document reads well in a client generator", () => {
  test("names one server: this daemon, relative to where the document was read", () => {
    expect(doc.servers).toEqual([{ url: "/", description: "This daemon: the address this document was fetched from" }]);
  });

  test("with cabinet.public_url set, names that public address first", () => {
    expect(openapiDocumentation("1.0.0", { cabinet: { public_url: "https://cw.example/" } }).servers).toEqual([
      { url: "https://cw.example", description: "The public address (cabinet.public_url)" },
      { url: "/", description: "This daemon: the address this document was fetched from" },
    ]);
  });

  test("leaves the cabinet's HTML pages and forms out", () => {
    expect(Object.keys(doc.paths).filter((p) => p.startsWith("/cabinet"))).toEqual([]);
    expect(doc.tags.map((t: Json) => t.name)).not.toContain("cabinet");
  });

  test("every operation has a unique camelCase operationId, the API's verbs by name", () => {
    const ids = operations().map(([, op]) => op.operationId);
    expect(ids.filter((id) => typeof id !== "string" || !/^[a-z][a-zA-Z0-9]*$/.test(id))).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    const byRoute = Object.fromEntries(operations().map(([route, op]) => [route, op.operationId]));
    expect(byRoute).toMatchObject({
      "GET /v1/account": "getAccount",
      "GET /v1/address-watch/events": "listEvents",
      "POST /v1/address-watch/addresses": "addWatch",
      "DELETE /v1/address-watch/addresses": "deleteWatch",
      "PUT /v1/address-watch/webhook": "updateWebhook",
      "POST /v1/payments": "createPayment",
      "GET /v1/payments/{payment_id}": "getPayment",
      "POST /ingest/blocks": "ingestBlocks",
    });
  });

  test("every request body and every 2xx body carries an example, and each example fits its schema", () => {
    const problems: string[] = [];
    for (const [route, op] of operations()) {
      const bodies: [string, Json][] = [
        ...Object.entries((op.requestBody?.content ?? {}) as Json).map(([type, media]) => [`${route} request ${type}`, media] as [string, Json]),
        ...Object.entries((op.responses ?? {}) as Json)
          .filter(([status]) => /^2/.test(status))
          .flatMap(([status, r]) => Object.entries((r.content ?? {}) as Json).map(([type, media]) => [`${route} ${status} ${type}`, media] as [string, Json])),
      ];
      for (const [where, media] of bodies) {
        if (media.example === undefined) problems.push(`${where}: no example`);
        const schema = schemaOf(media.schema?.$ref);
        if (schema && media.example !== undefined) {
          for (const e of Value.Errors(schema, media.example)) problems.push(`${where}: example ${e.path} ${e.message}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });
});

describe("real responses match the documented schemas", () => {
  /** Checks `res` against the schema the document names for this operation and status. */
  async function conforms(method: string, template: string, res: Response) {
    const op = doc.paths[openapiPath(template)][method.toLowerCase()];
    const documented = op.responses[String(res.status)];
    expect(documented, `${method} ${template} answered ${res.status}, which is not documented`).toBeDefined();
    const body = (await res.json()) as Json;
    const schema = schemaOf(documented.content?.["application/json"]?.schema?.$ref);
    expect(schema, `${method} ${template} ${res.status} has no schema`).toBeDefined();
    const errors = [...Value.Errors(schema as TSchema, body)].map((e) => `${e.path} ${e.message}`);
    expect(errors, `${method} ${template} ${res.status}: ${JSON.stringify(body)}`).toEqual([]);
    return body;
  }

  test("each operation, on success and on its documented failures", async () => {
    const c = client;
    const address = "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed";
    await conforms("GET", "/healthz", await fetch(`${td.url}/healthz`));
    await conforms("GET", "/v1/account", await c.request("GET", "/v1/account"));
    await conforms("GET", "/v1/account/usage", await c.request("GET", "/v1/account/usage?days=3"));
    await conforms("GET", "/v1/account/usage", await c.request("GET", "/v1/account/usage?days=0"));
    await conforms("GET", "/v1/endpoints", await c.request("GET", "/v1/endpoints"));
    await conforms("GET", "/v1/address-watch/account", await c.request("GET", "/v1/address-watch/account"));
    const watch = await conforms("POST", "/v1/address-watch/addresses", await c.request("POST", "/v1/address-watch/addresses", { network_slug: "eth", address }));
    await conforms("POST", "/v1/address-watch/addresses", await c.request("POST", "/v1/address-watch/addresses", { network_slug: "eth", address }));
    await conforms("POST", "/v1/address-watch/addresses", await c.request("POST", "/v1/address-watch/addresses", { network_slug: "nope", address }));
    await conforms("GET", "/v1/address-watch/addresses", await c.request("GET", "/v1/address-watch/addresses"));
    await conforms("PUT", "/v1/address-watch/webhook", await c.request("PUT", "/v1/address-watch/webhook", { url: sink.url, enabled: true }));
    await conforms("PUT", "/v1/address-watch/webhook", await c.request("PUT", "/v1/address-watch/webhook", { url: null, enabled: true }));
    await conforms("GET", "/v1/address-watch/webhook", await c.request("GET", "/v1/address-watch/webhook"));
    const block = {
      network: "eth",
      height: 100,
      hash: "0xb100",
      parent_hash: "0xb099",
      transactions: [{ hash: "0xt1", from: "0x1111111111111111111111111111111111111111", to: address, value: "1500000000000000000" }],
    };
    await conforms("POST", "/ingest/blocks", await td.ingest(block));
    await conforms("POST", "/ingest/blocks", await td.ingest({ ...block, hash: 5 }));
    const events = await conforms("GET", "/v1/address-watch/events", await c.request("GET", "/v1/address-watch/events"));
    expect(events.events.map((e: Json) => e.type).sort()).toEqual(["block", "payment"]);
    await conforms("GET", "/v1/address-watch/events", await c.request("GET", "/v1/address-watch/events?after=evt_nope"));
    await conforms("POST", "/v1/address-watch/webhook/test", await c.request("POST", "/v1/address-watch/webhook/test", { event: "block", network: "eth" }));
    const order = await conforms(
      "POST",
      "/v1/payments",
      await c.request("POST", "/v1/payments", { order_id: "o-1", network: "eth", address: "0x2222222222222222222222222222222222222222", amount: "1.5" }),
    );
    await conforms("POST", "/v1/payments", await c.request("POST", "/v1/payments", { order_id: "o-1", network: "eth", address: "0x3333333333333333333333333333333333333333", amount: "1" }));
    await conforms("GET", "/v1/payments", await c.request("GET", "/v1/payments"));
    await conforms("GET", "/v1/payments/:payment_id", await c.request("GET", `/v1/payments/${order.payment_id}`));
    await conforms("GET", "/v1/payments/:payment_id", await c.request("GET", "/v1/payments/pay_nope"));
    await conforms("GET", "/v1/payments/settings", await c.request("GET", "/v1/payments/settings"));
    await conforms("PUT", "/v1/payments/settings", await c.request("PUT", "/v1/payments/settings", { webhook_url: null }));
    // The account-level xpub (m/44'/60'/0') of the BIP-39 test phrase "abandon … about".
    const xpub = "xpub6DCoCpSuQZB2jawqnGMEPS63ePKWkwWPH4TU45Q7LPXWuNd8TMtVxRrgjtEshuqpK3mdhaWHPFsBngh5GFZaM6si3yZdUsT8ddYM3PwnATt";
    await conforms("PUT", "/v1/payments/wallets/:network", await c.request("PUT", "/v1/payments/wallets/eth", { key: xpub }));
    await conforms("PUT", "/v1/payments/wallets/:network", await c.request("PUT", "/v1/payments/wallets/eth", { key: xpub, gap_limit: 0 }));
    await conforms("GET", "/v1/payments/wallets", await c.request("GET", "/v1/payments/wallets"));
    const derived = await conforms("POST", "/v1/payments", await c.request("POST", "/v1/payments", { order_id: "o-derived", network: "eth", amount: "1" }));
    expect(derived.derivation_index).toBe(0);
    await conforms("DELETE", "/v1/payments/wallets/:network", await c.request("DELETE", "/v1/payments/wallets/eth"));
    await conforms("DELETE", "/v1/payments/wallets/:network", await c.request("DELETE", "/v1/payments/wallets/eth"));
    await conforms("DELETE", "/v1/address-watch/addresses", await c.request("DELETE", "/v1/address-watch/addresses", { watch_id: watch.watch_id }));
    await conforms("DELETE", "/v1/address-watch/addresses", await c.request("DELETE", "/v1/address-watch/addresses", { watch_id: watch.watch_id }));
    await conforms("GET", "/v1/account", await fetch(`${td.url}/v1/account`));
  });

  test("the bodies of every webhook kind match the documented webhooks", async () => {
    // An account and a receiver of their own: the first test's webhooks go to the shared sink (its
    // PUT of a null URL is refused, so the URL stays) and may still arrive while this test runs.
    const c = await td.client({ credits: 1_000_000 });
    const own = startWebhookSink();
    expect((await c.request("PUT", "/v1/address-watch/webhook", { url: own.url, enabled: true })).status).toBe(200);
    for (const event of TEST_EVENTS) {
      expect((await c.request("POST", "/v1/address-watch/webhook/test", { event, network: "eth" })).status).toBe(202);
    }
    const received = await own.waitFor(TEST_EVENTS.length);
    await own.stop();
    const schemaFor = (body: Json) =>
      body.type === "payment_order" ? SCHEMAS.PaymentOrderWebhook : body.type === "block" ? SCHEMAS.BlockEvent : SCHEMAS.WalletEvent;
    const required = doc.webhooks["address-watch-event"].post.parameters.filter((p: Json) => p.required).map((p: Json) => p.name.toLowerCase());
    for (const r of received) {
      const body = JSON.parse(r.body);
      expect([...Value.Errors(schemaFor(body), body)].map((e) => `${body.type} ${e.path} ${e.message}`)).toEqual([]);
      for (const h of required) expect(r.headers[h], h).toBeDefined();
    }
    expect(received.map((r) => JSON.parse(r.body).type).sort()).toEqual([...TEST_EVENTS].sort());
  });
});

describe("GET /openapi", () => {
  test("is one self-contained page: no script, nothing loaded from elsewhere", async () => {
    const res = await fetch(`${td.url}/openapi`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("content-security-policy")).toStartWith("default-src 'none'; style-src 'unsafe-inline'");
    const html = await res.text();
    expect(html).not.toContain("<script");
    expect(html).not.toMatch(/<link\b/);
    expect(html).not.toMatch(/\b(src|href)="(https?:)?\/\//);
    for (const path of Object.keys(doc.paths)) expect(html).toContain(path.replace(/&/g, "&amp;"));
    expect(html).toContain('id="schema-PaymentOrderWebhook"');
    expect(html).toContain("Webhooks chainwatch sends");
  });
});
