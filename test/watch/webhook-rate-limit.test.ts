import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { DEFAULT_FILTERS } from "../../src/webhooks/filters.ts";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";

// docs/api.md, docs/webhooks.md: the webhook's delivery rate limit through GET and PUT
// /v1/address-watch/webhook — `"delivery": {"max_rps": N}` beside url, enabled, events and
// egress_ips, the account's own limit, else the config's `delivery.max_rps`.

const PATH = "/v1/address-watch/webhook";
const URL_A = "https://93.184.216.34/hooks";

async function put(client: TestClient, body: unknown) {
  const res = await client.request("PUT", PATH, body);
  return { status: res.status, body: (await res.json()) as unknown };
}

async function get(client: TestClient) {
  const res = await client.request("GET", PATH);
  return { status: res.status, body: (await res.json()) as unknown };
}

describe("with no default limit in the config", () => {
  let td: TestDaemon;
  beforeAll(async () => {
    td = await startTestDaemon({ config: { rate_limit: { per_key_rps: 10_000 }, delivery: { allow_private_targets: false } } });
  });
  afterAll(async () => {
    await td.stop();
  });

  it("GET shows delivery.max_rps 0 beside the other keys of a new account's webhook", async () => {
    const c = await td.client();
    expect(await get(c)).toEqual({
      status: 200,
      body: { url: null, enabled: false, events: DEFAULT_FILTERS, egress_ips: [], delivery: { max_rps: 0 } },
    });
  });

  it("PUT stores a limit and answers the GET shape with it; GET shows it", async () => {
    const c = await td.client();
    const expected = { url: URL_A, enabled: true, events: DEFAULT_FILTERS, egress_ips: [], delivery: { max_rps: 20 } };
    expect(await put(c, { url: URL_A, enabled: true, delivery: { max_rps: 20 } })).toEqual({ status: 200, body: expected });
    expect(await get(c)).toEqual({ status: 200, body: expected });
  });

  it("a PUT without delivery, or without max_rps in it, keeps the stored limit", async () => {
    const c = await td.client();
    await put(c, { url: URL_A, enabled: true, delivery: { max_rps: 7 } });
    expect(((await put(c, { url: URL_A, enabled: false })).body as { delivery: unknown }).delivery).toEqual({ max_rps: 7 });
    expect(((await put(c, { url: URL_A, enabled: true, delivery: {} })).body as { delivery: unknown }).delivery).toEqual({ max_rps: 7 });
    expect(((await get(c)).body as { delivery: unknown }).delivery).toEqual({ max_rps: 7 });
  });

  it("0 lifts the limit; 10000 is the highest", async () => {
    const c = await td.client();
    await put(c, { url: URL_A, enabled: true, delivery: { max_rps: 7 } });
    expect(((await put(c, { url: URL_A, enabled: true, delivery: { max_rps: 0 } })).body as { delivery: unknown }).delivery).toEqual({ max_rps: 0 });
    expect(((await put(c, { url: URL_A, enabled: true, delivery: { max_rps: 10_000 } })).body as { delivery: unknown }).delivery).toEqual({ max_rps: 10_000 });
  });

  it("the GET document sent back unchanged is accepted and changes nothing", async () => {
    const c = await td.client();
    await put(c, { url: URL_A, enabled: true, events: { block: false }, delivery: { max_rps: 3 } });
    const current = (await get(c)).body;
    expect(await put(c, current)).toEqual({ status: 200, body: current });
  });

  it("GET /v1/address-watch/account keeps its two webhook keys", async () => {
    const c = await td.client();
    await put(c, { url: URL_A, enabled: true, delivery: { max_rps: 3 } });
    const res = await c.request("GET", "/v1/address-watch/account");
    expect(((await res.json()) as { webhook: unknown }).webhook).toEqual({ url: URL_A, enabled: true });
  });

  it.each<[string, unknown, string]>([
    ["a negative max_rps", { max_rps: -1 }, "delivery.max_rps must be at least 0"],
    ["max_rps above 10000", { max_rps: 10_001 }, "delivery.max_rps must be at most 10000"],
    ["a fractional max_rps", { max_rps: 2.5 }, "delivery.max_rps must be an integer"],
    ["max_rps as a string", { max_rps: "20" }, "delivery.max_rps must be an integer"],
    ["max_rps null", { max_rps: null }, "delivery.max_rps must be an integer"],
    ["an unknown key in delivery", { max_rps: 5, burst: 10 }, "delivery.burst is not a known field"],
    ["delivery as a number", 20, "delivery must be an object"],
    ["delivery null", null, "delivery must be an object"],
  ])("refuses %s with 400 naming the field, and changes nothing", async (_case, delivery, error) => {
    const c = await td.client();
    await put(c, { url: URL_A, enabled: true, delivery: { max_rps: 9 } });
    const before = await get(c);
    expect(await put(c, { url: URL_A, enabled: false, delivery })).toEqual({ status: 400, body: { error } });
    expect(await get(c)).toEqual(before);
  });
});

describe("with delivery.max_rps = 15 in the config", () => {
  let td: TestDaemon;
  beforeAll(async () => {
    td = await startTestDaemon({ config: { rate_limit: { per_key_rps: 10_000 }, delivery: { allow_private_targets: false, max_rps: 15 } } });
  });
  afterAll(async () => {
    await td.stop();
  });

  it("an account with no limit of its own shows the config's", async () => {
    const c = await td.client();
    expect(await get(c)).toEqual({
      status: 200,
      body: { url: null, enabled: false, events: DEFAULT_FILTERS, egress_ips: [], delivery: { max_rps: 15 } },
    });
    expect(((await put(c, { url: URL_A, enabled: true })).body as { delivery: unknown }).delivery).toEqual({ max_rps: 15 });
  });

  it("the account's own limit wins, 0 included", async () => {
    const c = await td.client();
    expect(((await put(c, { url: URL_A, enabled: true, delivery: { max_rps: 40 } })).body as { delivery: unknown }).delivery).toEqual({ max_rps: 40 });
    expect(((await put(c, { url: URL_A, enabled: true, delivery: { max_rps: 0 } })).body as { delivery: unknown }).delivery).toEqual({ max_rps: 0 });
    expect(((await get(c)).body as { delivery: unknown }).delivery).toEqual({ max_rps: 0 });
  });
});
