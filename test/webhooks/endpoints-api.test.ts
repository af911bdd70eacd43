import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { setPlan } from "../../src/accounts/plans.ts";
import { SCHEMAS } from "../../src/http/openapi/schemas.ts";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import { deliveriesWithBodies } from "../../src/delivery/outbox.ts";

// The endpoints API (docs/api.md, "Webhook endpoints"): several endpoints per account, each with
// its own URL, filters, rate and secret; at most the plan's max_endpoints; another account's id is
// not found; PATCH changes only the keys given; the address-watch webhook routes keep acting on
// the default endpoint (the oldest) with their shapes.

type Json = Record<string, any>;
const BASE = "/v1/webhooks/endpoints";
const X = "0x4444444444444444444444444444444444444444";
let td: TestDaemon;
let sink: WebhookSink;
let doc: Json;

beforeAll(async () => {
  td = await startTestDaemon({ config: { rate_limit: { per_key_rps: 10_000 }, billing: { enabled: false } } });
  sink = startWebhookSink();
  doc = (await (await fetch(`${td.url}/openapi/json`)).json()) as Json;
});
afterAll(async () => {
  await td.stop();
  await sink.stop();
});

/** A signed call, its status and body, the body checked against the schema the OpenAPI document gives that status. */
async function call(c: TestClient, method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const res = await c.request(method, path, body);
  const json = (await res.json()) as Json;
  const template = path.replace(/\/ep_[0-9a-z]+/, "/{endpoint_id}");
  const documented = doc.paths[template]?.[method.toLowerCase()]?.responses?.[String(res.status)];
  expect(documented, `${method} ${template} answered ${res.status}, which is not documented`).toBeDefined();
  const schema = (SCHEMAS as Record<string, TSchema>)[String(documented.content["application/json"].schema.$ref).split("/").pop() as string];
  expect([...Value.Errors(schema, json)].map((e) => `${e.path} ${e.message}`), `${method} ${path}: ${JSON.stringify(json)}`).toEqual([]);
  return { status: res.status, body: json };
}

const created = (b: Json) => b as { endpoint_id: string; secret: string };

describe("an account's endpoints", () => {
  let c: TestClient;
  beforeAll(async () => {
    c = await td.client({ name: "multi" });
  });

  test("an account starts with its default endpoint: no URL, off, the secret accounts create printed in no listing", async () => {
    const list = await call(c, "GET", BASE);
    expect(list.status).toBe(200);
    expect(list.body.endpoints).toEqual([
      {
        endpoint_id: expect.stringMatching(/^ep_[0-9a-f]{24}$/),
        url: null,
        enabled: false,
        description: null,
        events: {
          payment: true,
          payment_networks: [],
          payout: true,
          payout_networks: [],
          block: true,
          block_networks: [],
          min_confirmations: 0,
          payment_order: true,
        },
        delivery: { max_rps: 0 },
        created_at: expect.any(String),
      },
    ]);
    expect(JSON.stringify(list.body)).not.toContain("whsec_");
  });

  test("POST adds one, switched on, with its own secret shown this once; GET lists it after the default and shows it without the secret", async () => {
    const res = await call(c, "POST", BASE, {
      url: sink.url,
      description: "Order service",
      events: { payment: false, block_networks: ["eth"], payment_order: false },
      delivery: { max_rps: 5 },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      endpoint_id: expect.stringMatching(/^ep_[0-9a-f]{24}$/),
      url: sink.url,
      enabled: true,
      description: "Order service",
      events: {
        payment: false,
        payment_networks: [],
        payout: true,
        payout_networks: [],
        block: true,
        block_networks: ["eth"],
        min_confirmations: 0,
        payment_order: false,
      },
      delivery: { max_rps: 5 },
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/),
      created_at: expect.any(String),
    });
    expect(created(res.body).secret).not.toBe(c.webhookSecret);
    const { secret: _shownOnce, ...shown } = res.body;
    expect((await call(c, "GET", `${BASE}/${res.body.endpoint_id}`)).body).toEqual(shown);
    const list = (await call(c, "GET", BASE)).body.endpoints as Json[];
    expect(list.map((e) => e.endpoint_id)[1]).toBe(res.body.endpoint_id);
    expect(list[1]).toEqual(shown);
  });

  test("the address-watch webhook stays the default endpoint's, in its own shape", async () => {
    expect((await c.request("PUT", "/v1/address-watch/webhook", { url: sink.url, enabled: true, events: { block: false } })).status).toBe(200);
    const webhook = await c.request("GET", "/v1/address-watch/webhook");
    expect(await webhook.json()).toEqual({
      url: sink.url,
      enabled: true,
      events: { payment: true, payment_networks: [], payout: true, payout_networks: [], block: false, block_networks: [], min_confirmations: 0 },
      egress_ips: [],
      delivery: { max_rps: 0 },
    });
    const [first, second] = (await call(c, "GET", BASE)).body.endpoints as Json[];
    expect(first).toMatchObject({ url: sink.url, enabled: true, events: { block: false, payment_order: true } });
    expect(second).toMatchObject({ description: "Order service", events: { block: true, payment: false } });
    // payment_order is the endpoints API's: the webhook's PUT refuses it, as any unknown key.
    expect(await (await c.request("PUT", "/v1/address-watch/webhook", { url: null, enabled: false, events: { payment_order: false } })).json()).toEqual({
      error: "events.payment_order is not a known field",
    });
  });

  test("PATCH changes only the keys given; events keys given replace, the others stay", async () => {
    const made = created((await call(c, "POST", BASE, { url: sink.url, events: { block_networks: ["eth"], min_confirmations: 3 } })).body);
    const path = `${BASE}/${made.endpoint_id}`;
    const before = (await call(c, "GET", path)).body;
    const patched = await call(c, "PATCH", path, { events: { payout: false, block_networks: [] } });
    expect(patched).toEqual({ status: 200, body: { ...before, events: { ...before.events, payout: false, block_networks: [] } } });
    expect((await call(c, "PATCH", path, { description: "audit log" })).body).toEqual({ ...patched.body, description: "audit log" });
    expect((await call(c, "PATCH", path, {})).body).toEqual({ ...patched.body, description: "audit log" });
    expect((await call(c, "PATCH", path, { enabled: false, delivery: { max_rps: 9 } })).body).toMatchObject({ enabled: false, url: sink.url, delivery: { max_rps: 9 } });
    // enabled: true needs a URL, given or stored.
    expect(await call(c, "PATCH", path, { url: null, enabled: true })).toEqual({ status: 400, body: { error: "url is required when enabled is true" } });
    expect((await call(c, "PATCH", path, { url: null })).body).toMatchObject({ url: null, enabled: false });
    expect(await call(c, "PATCH", path, { enabled: true })).toEqual({ status: 400, body: { error: "url is required when enabled is true" } });
    expect((await call(c, "GET", path)).body).toMatchObject({ url: null, enabled: false, description: "audit log" });
  });

  test.each([
    ["an unknown field", { url: "https://x.example", secret: "whsec_x" }, "secret is not a known field"],
    ["no url", { enabled: true }, "url is required"],
    ["a relative URL", { url: "/hook" }, "url must be an absolute http(s) URL"],
    ["an unknown filter key", { url: "https://93.184.216.34/h", events: { all: true } }, "events.all is not a known field"],
    ["an unknown network", { url: "https://93.184.216.34/h", events: { payment_networks: ["doge"] } }, "Unknown network: doge"],
    ["a long description", { url: "https://93.184.216.34/h", description: "x".repeat(201) }, "description must be at most 200 characters"],
    ["a rate too high", { url: "https://93.184.216.34/h", delivery: { max_rps: 10_001 } }, "delivery.max_rps must be at most 10000"],
  ])("POST refuses %s with 400 naming it, adding nothing", async (_name, body, error) => {
    const count = ((await call(c, "GET", BASE)).body.endpoints as Json[]).length;
    expect(await call(c, "POST", BASE, body)).toEqual({ status: 400, body: { error } });
    expect(((await call(c, "GET", BASE)).body.endpoints as Json[]).length).toBe(count);
  });
});

describe("another account's endpoint is not found", () => {
  test("GET, PATCH, DELETE and every action on another account's id (or none) answer 404 Endpoint not found. and change nothing", async () => {
    const owner = await td.client({ name: "owner" });
    const other = await td.client({ name: "stranger" });
    const theirs = created((await call(owner, "POST", BASE, { url: sink.url })).body).endpoint_id;
    const notFound = { status: 404, body: { error: "Endpoint not found." } };
    for (const id of [theirs, "ep_nope"]) {
      const path = `${BASE}/${id}`;
      expect(await call(other, "GET", path)).toEqual(notFound);
      expect(await call(other, "PATCH", path, { enabled: false })).toEqual(notFound);
      expect(await call(other, "DELETE", path)).toEqual(notFound);
      expect(await call(other, "POST", `${path}/test`, { event: "payment", network: "eth" })).toEqual(notFound);
      expect(await call(other, "POST", `${path}/secret/rotate`, {})).toEqual(notFound);
      expect(await call(other, "GET", `${path}/health`)).toEqual(notFound);
      expect(await call(other, "POST", `${path}/recover`, { since: 0 })).toEqual(notFound);
      expect(await call(other, "POST", `${path}/replay`, { since: 0 })).toEqual(notFound);
    }
    expect((await call(owner, "GET", `${BASE}/${theirs}`)).body).toMatchObject({ endpoint_id: theirs, enabled: true, url: sink.url });
  });
});

describe("the plan's max_endpoints", () => {
  test("past it POST answers 403 Endpoint limit reached. (the default endpoint counts); removing one makes room", async () => {
    const c = await td.client({ name: "limited" });
    const plan = await setPlan(td.ctx.db, td.ctx.clock, { name: "plan-limited", slots: 10, maxEndpoints: 3 });
    expect(plan.ok).toBe(true);
    const a = created((await call(c, "POST", BASE, { url: sink.url })).body);
    expect((await call(c, "POST", BASE, { url: sink.url })).status).toBe(201);
    expect(await call(c, "POST", BASE, { url: sink.url })).toEqual({ status: 403, body: { error: "Endpoint limit reached." } });
    expect(((await call(c, "GET", BASE)).body.endpoints as Json[]).length).toBe(3);
    expect(await call(c, "DELETE", `${BASE}/${a.endpoint_id}`)).toEqual({ status: 200, body: { endpoint_id: a.endpoint_id, deleted: true } });
    expect((await call(c, "POST", BASE, { url: sink.url })).status).toBe(201);
  });

  test("two creations at once cannot both take the last place", async () => {
    const c = await td.client({ name: "racing" });
    expect((await setPlan(td.ctx.db, td.ctx.clock, { name: "plan-racing", slots: 10, maxEndpoints: 2 })).ok).toBe(true);
    const statuses = await Promise.all([0, 1, 2, 3].map(async () => (await c.request("POST", BASE, { url: sink.url })).status));
    expect(statuses.sort()).toEqual([201, 403, 403, 403]);
  });
});

describe("removing an endpoint", () => {
  test("its waiting deliveries end failed (endpoint removed); the next oldest becomes the default; the last one stays (409)", async () => {
    const c = await td.client({ name: "remover" });
    const [first] = (await call(c, "GET", BASE)).body.endpoints as Json[];
    const second = created((await call(c, "POST", BASE, { url: sink.url, enabled: false })).body);
    const queued = await call(c, "POST", `${BASE}/${first.endpoint_id}/test`, { event: "payment", network: "eth" });
    expect(queued.status).toBe(400);
    expect((await call(c, "PATCH", `${BASE}/${first.endpoint_id}`, { url: "http://127.0.0.1:9/never" })).status).toBe(200);
    // Tests go even to a disabled endpoint; port 9 never answers, so this one waits out its retries.
    const test = await call(c, "POST", `${BASE}/${first.endpoint_id}/test`, { event: "payment", network: "eth" });
    expect(test.status).toBe(202);
    await td.ctx.db.updateTable("deliveries").set({ next_attempt_at: td.ctx.clock.now() + 3_600_000 }).where("id", "=", test.body.delivery_id).execute();

    expect(await call(c, "DELETE", `${BASE}/${first.endpoint_id}`)).toEqual({ status: 200, body: { endpoint_id: first.endpoint_id, deleted: true } });
    const row = await td.ctx.db.selectFrom("deliveries").selectAll().where("id", "=", test.body.delivery_id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: "failed", last_error: "endpoint removed" });
    // The address-watch webhook is now the remaining endpoint's.
    expect(await (await c.request("GET", "/v1/address-watch/webhook")).json()).toMatchObject({ url: sink.url, enabled: false });
    expect(await call(c, "DELETE", `${BASE}/${second.endpoint_id}`)).toEqual({
      status: 409,
      body: { error: "An account keeps at least one webhook endpoint; disable it instead." },
    });
    expect(((await call(c, "GET", BASE)).body.endpoints as Json[]).map((e) => e.endpoint_id)).toEqual([second.endpoint_id]);
  });
});

describe("replay and recovery, per endpoint", () => {
  test("a replay to one endpoint queues its own deliveries; an event waiting in it does not stop a replay to another endpoint", async () => {
    const c = await td.client({ name: "replayer" });
    const W = "0x3333333333333333333333333333333333333333";
    expect((await c.request("POST", "/v1/address-watch/addresses", { network_slug: "eth", address: W })).status).toBe(201);
    const ingested = await td.ingest({ network: "eth", height: 7, hash: "0xr7", parent_hash: "0xr6", transactions: [{ hash: "0xrt7", from: W, to: X, value: "5" }] });
    expect(ingested.status).toBe(202);
    // Two endpoints pointed at a port nothing listens on: a replayed row fails its attempt and
    // waits out a retry, so it is still waiting in the replay when the next call comes.
    const a = created((await call(c, "POST", BASE, { url: "http://127.0.0.1:9/a", events: { block: false } })).body).endpoint_id;
    const b = created((await call(c, "POST", BASE, { url: "http://127.0.0.1:9/b", events: { block: false } })).body).endpoint_id;
    const since = Math.floor(td.ctx.clock.now() / 1000) - 60;
    expect(await call(c, "POST", `${BASE}/${a}/replay`, { since })).toEqual({ status: 202, body: { queued: 1, next_after: null } });
    expect(await call(c, "POST", `${BASE}/${a}/replay`, { since })).toEqual({ status: 202, body: { queued: 0, next_after: null } });
    expect(await call(c, "POST", `${BASE}/${b}/replay`, { since })).toEqual({ status: 202, body: { queued: 1, next_after: null } });
    const replayed = await deliveriesWithBodies(td.ctx.db).where("account_id", "=", c.accountId).where("replay", "=", 1).execute();
    expect(replayed.map((r) => r.endpoint_id).sort()).toEqual([a, b].sort());
    expect(new Set(replayed.map((r) => r.body)).size).toBe(1);
    // A disabled endpoint takes no replay, as the address-watch webhook's does not.
    await call(c, "PATCH", `${BASE}/${b}`, { enabled: false });
    expect(await call(c, "POST", `${BASE}/${b}/replay`, { since })).toEqual({ status: 400, body: { error: "Webhook is disabled." } });
  });

  test("a recovery of one endpoint re-queues its failed deliveries only", async () => {
    const c = await td.client({ name: "recoverer" });
    const a = created((await call(c, "POST", BASE, { url: "http://127.0.0.1:9/a", enabled: false })).body).endpoint_id;
    const b = created((await call(c, "POST", BASE, { url: "http://127.0.0.1:9/b", enabled: false })).body).endpoint_id;
    const ids: Record<string, string> = {};
    for (const id of [a, b]) ids[id] = (await call(c, "POST", `${BASE}/${id}/test`, { event: "payment", network: "eth" })).body.delivery_id;
    // Tests are never recovered: make them what a recovery takes, failed address-watch deliveries.
    await td.ctx.db.updateTable("deliveries").set({ kind: "event", status: "failed", completed_at: td.ctx.clock.now() }).where("id", "in", Object.values(ids)).execute();
    const since = Math.floor(td.ctx.clock.now() / 1000) - 60;
    expect(await call(c, "POST", `${BASE}/${a}/recover`, { since })).toEqual({ status: 200, body: { requeued: 1, more: false } });
    const rows = await td.ctx.db.selectFrom("deliveries").select(["id", "status"]).where("id", "in", Object.values(ids)).execute();
    expect(Object.fromEntries(rows.map((r) => [r.id, r.status]))).toEqual({ [ids[a]]: "pending", [ids[b]]: "failed" });
    expect((await call(c, "GET", `${BASE}/${a}/health`)).body).toMatchObject({ state: "disabled", pending: 1, failed: 0 });
    expect((await call(c, "GET", `${BASE}/${b}/health`)).body).toMatchObject({ state: "disabled", pending: 0, failed: 1 });
  });
});
