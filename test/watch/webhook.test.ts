import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { createApp } from "../../src/http/app.ts";
import type { AppDeps } from "../../src/http/deps.ts";
import type { Resolver } from "../../src/net/target-guard.ts";
import { DEFAULT_FILTERS } from "../../src/webhooks/filters.ts";
import { signedHeaders, startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";

const PATH = "/v1/address-watch/webhook";
const EGRESS = ["203.0.113.7", "2001:db8::7"];
/** No delivery rate limit: the account set none and the config's default is 0. */
const DELIVERY = { max_rps: 0 };
let td: TestDaemon;

beforeAll(async () => {
  td = await startTestDaemon({
    config: {
      rate_limit: { per_key_rps: 10_000 },
      delivery: { allow_private_targets: false, egress_ips: EGRESS },
    },
  });
});

afterAll(async () => {
  await td.stop();
});

type Settings = { url: string | null; enabled: boolean; events: Record<string, unknown>; egress_ips: string[]; delivery: { max_rps: number } };

async function put(client: TestClient, body: unknown) {
  const res = await client.request("PUT", PATH, body);
  return { status: res.status, body: (await res.json()) as Settings | { error: string } };
}

async function get(client: TestClient): Promise<Settings> {
  const res = await client.request("GET", PATH);
  expect(res.status).toBe(200);
  return (await res.json()) as Settings;
}

/** A resolver answering from a fixed table, recording every name asked; unknown names fail like NXDOMAIN. */
function tableResolver(table: Record<string, string[]>): Resolver & { asked: string[] } {
  const asked: string[] = [];
  const resolve: Resolver = async (hostname) => {
    asked.push(hostname);
    const answers = table[hostname];
    if (answers === undefined) throw new Error(`ENOTFOUND ${hostname}`);
    return answers;
  };
  return Object.assign(resolve, { asked });
}

/**
 * The same app over the running daemon's database and keys, with a different resolver (or
 * other deps), driven through app.handle: DNS answers are injected, never looked up for real.
 */
function appWith(overrides: Partial<AppDeps>) {
  const app = createApp({ ...td.daemon.deps, ...overrides });
  return async (client: TestClient, method: string, body?: unknown) => {
    const text = body === undefined ? "" : JSON.stringify(body);
    const ts = Math.floor(td.ctx.clock.now() / 1000);
    const res = await app.handle(
      new Request(`http://localhost${PATH}`, {
        method,
        body: body === undefined ? undefined : text,
        headers: { "Content-Type": "application/json", ...signedHeaders(client, method, PATH, text, ts) },
      }),
    );
    return { status: res.status, body: (await res.json()) as Settings | { error: string } };
  };
}

describe("reading the webhook", () => {
  it("answers a new account with no URL, disabled, every event on, and the egress IPs", async () => {
    const client = await td.client();
    expect(await get(client)).toEqual({ url: null, enabled: false, events: DEFAULT_FILTERS, egress_ips: EGRESS, delivery: DELIVERY });
  });
});

describe("setting the webhook", () => {
  it("stores the URL and enabled flag and answers with the GET shape", async () => {
    const client = await td.client();
    const expected = { url: "https://93.184.216.34/hooks?token=abc", enabled: true, events: DEFAULT_FILTERS, egress_ips: EGRESS, delivery: DELIVERY };
    expect(await put(client, { url: expected.url, enabled: true })).toEqual({ status: 200, body: expected });
    expect(await get(client)).toEqual(expected);
  });

  it("shows the new URL and flag in GET /v1/address-watch/account", async () => {
    const client = await td.client();
    await put(client, { url: "https://93.184.216.34/h", enabled: true });
    const res = await client.request("GET", "/v1/address-watch/account");
    expect(((await res.json()) as { webhook: unknown }).webhook).toEqual({ url: "https://93.184.216.34/h", enabled: true });
  });

  it("keeps a URL while disabled, and clears it with null", async () => {
    const client = await td.client();
    await put(client, { url: "https://93.184.216.34/h", enabled: true });
    expect((await put(client, { url: "https://93.184.216.34/h", enabled: false })).body).toMatchObject({
      url: "https://93.184.216.34/h",
      enabled: false,
    });
    expect((await put(client, { url: null, enabled: false })).body).toMatchObject({ url: null, enabled: false });
    expect(await get(client)).toMatchObject({ url: null, enabled: false });
  });

  it("accepts the GET document sent back unchanged", async () => {
    const client = await td.client();
    await put(client, { url: "https://93.184.216.34/h", enabled: true, events: { block: false } });
    const current = await get(client);
    expect(await put(client, current)).toEqual({ status: 200, body: current });
  });

  it.each<[string, unknown, string]>([
    ["a missing url", { enabled: false }, "url is required"],
    ["a missing enabled", { url: "https://93.184.216.34/h" }, "enabled is required"],
    ["a number for url", { url: 7, enabled: false }, "url must be a string or null"],
    ["a string for enabled", { url: null, enabled: "yes" }, "enabled must be a boolean"],
    ["enabled without a URL", { url: null, enabled: true }, "url is required when enabled is true"],
    ["an unknown top-level field", { url: null, enabled: false, secret: "s" }, "secret is not a known field"],
    ["an unknown events key", { url: null, enabled: false, events: { payments: true } }, "events.payments is not a known field"],
    ["an unknown network in events", { url: null, enabled: false, events: { block_networks: ["eth", "doge"] } }, "Unknown network: doge"],
    ["a string for an events boolean", { url: null, enabled: false, events: { payout: "false" } }, "events.payout must be a boolean"],
    ["a string for an events list", { url: null, enabled: false, events: { payout_networks: "eth" } }, "events.payout_networks must be an array"],
    ["a number in an events list", { url: null, enabled: false, events: { payment_networks: [1] } }, "events.payment_networks[0] must be a string"],
    ["min_confirmations above 1000", { url: null, enabled: false, events: { min_confirmations: 1001 } }, "events.min_confirmations must be at most 1000"],
    ["a negative min_confirmations", { url: null, enabled: false, events: { min_confirmations: -1 } }, "events.min_confirmations must be at least 0"],
    ["a fractional min_confirmations", { url: null, enabled: false, events: { min_confirmations: 1.5 } }, "events.min_confirmations must be an integer"],
    ["min_confirmations as a string", { url: null, enabled: false, events: { min_confirmations: "3" } }, "events.min_confirmations must be an integer"],
    ["a non-http URL", { url: "ftp://93.184.216.34/h", enabled: false }, "url must be an absolute http(s) URL"],
    ["a relative URL", { url: "/hooks", enabled: false }, "url must be an absolute http(s) URL"],
    ["a URL with credentials", { url: "https://u:p@93.184.216.34/h", enabled: false }, "url must not contain credentials"],
    ["bad JSON", "{", "Invalid JSON body."],
  ])("refuses %s with 400 and changes nothing", async (_case, body, error) => {
    const client = await td.client();
    await put(client, { url: "https://93.184.216.34/before", enabled: true, events: { payment: false } });
    const before = await get(client);
    expect(await put(client, body)).toEqual({ status: 400, body: { error } });
    expect(await get(client)).toEqual(before);
  });
});

describe("event filters through PUT and GET", () => {
  it("replaces the keys given, keeps the keys left out, and keeps all when events is left out", async () => {
    const client = await td.client();
    const base = { url: null, enabled: false };
    await put(client, { ...base, events: { payment: false, block_networks: ["eth", "btc"] } });
    await put(client, { ...base, events: { payout_networks: ["tron"], block_networks: ["sol"], min_confirmations: 12 } });
    const after = await put(client, base);
    const expected = {
      payment: false,
      payment_networks: [],
      payout: true,
      payout_networks: ["tron"],
      block: true,
      block_networks: ["sol"],
      min_confirmations: 12,
    };
    expect(after).toEqual({ status: 200, body: { ...base, events: expected, egress_ips: EGRESS, delivery: DELIVERY } });
    expect((await get(client)).events).toEqual(expected);
  });

  it("sets a list back to empty, meaning every network", async () => {
    const client = await td.client();
    await put(client, { url: null, enabled: false, events: { payment_networks: ["eth"] } });
    await put(client, { url: null, enabled: false, events: { payment_networks: [] } });
    expect((await get(client)).events).toEqual(DEFAULT_FILTERS);
  });

  it("stores a network listed twice once", async () => {
    const client = await td.client();
    await put(client, { url: null, enabled: false, events: { block_networks: ["eth", "bsc", "eth"] } });
    expect((await get(client)).events.block_networks).toEqual(["eth", "bsc"]);
  });

  it("keeps each account's filters to itself", async () => {
    const alice = await td.client();
    const bob = await td.client();
    await put(alice, { url: "https://93.184.216.34/alice", enabled: true, events: { block: false } });
    expect(await get(bob)).toEqual({ url: null, enabled: false, events: DEFAULT_FILTERS, egress_ips: EGRESS, delivery: DELIVERY });
  });
});

describe("webhook targets with allow_private_targets = false", () => {
  it.each([
    ["loopback", "http://127.0.0.1:8080/hook"],
    ["a private 10.x address", "http://10.1.2.3/hook"],
    ["the cloud metadata address", "http://169.254.169.254/latest/meta-data"],
    ["IPv6 loopback", "http://[::1]:8080/hook"],
    ["localhost", "http://localhost:8080/hook"],
  ])("refuses %s with 400", async (_case, url) => {
    const client = await td.client();
    expect(await put(client, { url, enabled: true })).toEqual({ status: 400, body: { error: "url resolves to a private address" } });
    expect(await get(client)).toMatchObject({ url: null, enabled: false });
  });

  it("refuses a hostname that resolves to 127.0.0.1", async () => {
    const resolver = tableResolver({ "hooks.internal.example": ["127.0.0.1"] });
    const send = appWith({ resolveHost: resolver });
    const client = await td.client();
    expect(await send(client, "PUT", { url: "https://hooks.internal.example/h", enabled: true })).toEqual({
      status: 400,
      body: { error: "url resolves to a private address" },
    });
    expect(resolver.asked).toEqual(["hooks.internal.example"]);
  });

  it("refuses a hostname with one private answer among public ones", async () => {
    const send = appWith({ resolveHost: tableResolver({ "mixed.example.com": ["93.184.216.34", "10.0.0.5"] }) });
    const client = await td.client();
    expect(await send(client, "PUT", { url: "https://mixed.example.com/h", enabled: false })).toEqual({
      status: 400,
      body: { error: "url resolves to a private address" },
    });
  });

  it("refuses a hostname that does not resolve", async () => {
    const send = appWith({ resolveHost: tableResolver({}) });
    const client = await td.client();
    expect(await send(client, "PUT", { url: "https://nowhere.example.com/h", enabled: true })).toEqual({
      status: 400,
      body: { error: "url host could not be resolved" },
    });
  });

  it("accepts a hostname that resolves to a public address and stores the URL as given", async () => {
    const resolver = tableResolver({ "hooks.example.com": ["93.184.216.34", "2606:4700::1111"] });
    const send = appWith({ resolveHost: resolver });
    const client = await td.client();
    const expected = { url: "https://hooks.example.com/h?x=1", enabled: true, events: DEFAULT_FILTERS, egress_ips: EGRESS, delivery: DELIVERY };
    expect(await send(client, "PUT", { url: expected.url, enabled: true })).toEqual({ status: 200, body: expected });
    expect(resolver.asked).toEqual(["hooks.example.com"]);
    expect(await get(client)).toEqual(expected);
  });

  it("asks the resolver nothing when the URL is cleared", async () => {
    const resolver = tableResolver({});
    const send = appWith({ resolveHost: resolver });
    const client = await td.client();
    expect((await send(client, "PUT", { url: null, enabled: false })).status).toBe(200);
    expect(resolver.asked).toEqual([]);
  });
});

describe("webhook targets with allow_private_targets = true", () => {
  it("accepts a loopback URL", async () => {
    const config = { ...td.config, delivery: { ...td.config.delivery, allow_private_targets: true } };
    const send = appWith({ config, resolveHost: tableResolver({}) });
    const client = await td.client();
    expect(await send(client, "PUT", { url: "http://127.0.0.1:9/hook", enabled: true })).toEqual({
      status: 200,
      body: { url: "http://127.0.0.1:9/hook", enabled: true, events: DEFAULT_FILTERS, egress_ips: EGRESS, delivery: DELIVERY },
    });
  });
});
