import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createApiKey } from "../../src/accounts/api-keys.ts";
import { manualClock } from "../support/clock.ts";
import { signedHeaders, startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";

// A manual clock holds "now" still, so every request of a burst falls in the same 1000 ms window
// however slow the machine is; moving it by hand proves the window slides.
const clock = manualClock();
let td: TestDaemon;

beforeAll(async () => {
  td = await startTestDaemon({ clock });
});
afterAll(async () => {
  await td.stop();
});

async function burst(client: TestClient, n: number) {
  const responses = await Promise.all(Array.from({ length: n }, () => client.request("GET", "/v1/account")));
  return Promise.all(responses.map(async (r) => ({ status: r.status, retryAfter: r.headers.get("retry-after"), body: await r.json() })));
}

function badSignature(client: TestClient) {
  const headers = signedHeaders({ apiKey: client.apiKey, secret: "0".repeat(64) }, "GET", "/v1/account", "", Math.floor(clock.now() / 1000));
  return fetch(`${td.url}/v1/account`, { headers });
}

describe("per-key rate limit (10 accepted requests in a sliding second)", () => {
  test("of 20 concurrent requests with one key exactly 10 succeed and 10 get 429", async () => {
    const c = await td.client();
    const results = await burst(c, 20);
    const ok = results.filter((r) => r.status === 200);
    const limited = results.filter((r) => r.status === 429);
    expect(ok.length).toBe(10);
    expect(limited.length).toBe(10);
    for (const r of limited) expect(r).toEqual({ status: 429, retryAfter: "1", body: { error: "Rate limit exceeded." } });
    for (const r of ok) expect(r.retryAfter).toBe(null);
  });

  test("requests refused for a bad signature do not use up the window", async () => {
    const c = await td.client();
    const bad = await Promise.all(Array.from({ length: 15 }, () => badSignature(c)));
    expect(bad.map((r) => r.status)).toEqual(Array(15).fill(401));
    const good = await burst(c, 10);
    expect(good.map((r) => r.status)).toEqual(Array(10).fill(200));
  });

  test("the limit is per key: a second key of the same account has its own window", async () => {
    const first = await td.client({ name: "ratelimit-two-keys" });
    expect((await burst(first, 11)).filter((r) => r.status === 429).length).toBe(1);
    const second = await createApiKey(td.ctx, { accountId: first.accountId, allowIps: [] });
    if (!second.ok) throw new Error(second.error);
    const headers = signedHeaders({ apiKey: second.key.api_key, secret: second.key.secret }, "GET", "/v1/account", "", Math.floor(clock.now() / 1000));
    expect((await fetch(`${td.url}/v1/account`, { headers })).status).toBe(200);
  });

  test("the window slides: a full key is accepted again once its requests are 1000 ms old", async () => {
    const c = await td.client();
    expect((await burst(c, 10)).every((r) => r.status === 200)).toBe(true);
    clock.advance(999);
    expect((await burst(c, 1))[0].status).toBe(429);
    clock.advance(1);
    expect((await burst(c, 10)).map((r) => r.status)).toEqual(Array(10).fill(200));
    expect((await burst(c, 1))[0].status).toBe(429);
  });

  test("429 responses are counted in the auth rejection metric", async () => {
    const c = await td.client();
    await burst(c, 11);
    expect(td.daemon.deps.metrics.render()).toMatch(/chainwatch_auth_rejections_total\{reason="rate_limited"\} \d+/);
  });
});

describe("a configured rate_limit.per_key_rps", () => {
  let small: TestDaemon;
  const smallClock = manualClock();
  beforeAll(async () => {
    small = await startTestDaemon({ clock: smallClock, config: { rate_limit: { per_key_rps: 3 } } });
  });
  afterAll(async () => {
    await small.stop();
  });

  test("replaces the default of 10", async () => {
    const c = await small.client();
    const statuses = (await Promise.all(Array.from({ length: 6 }, () => c.request("GET", "/v1/account")))).map((r) => r.status);
    expect(statuses.filter((s) => s === 200).length).toBe(3);
    expect(statuses.filter((s) => s === 429).length).toBe(3);
  });
});
