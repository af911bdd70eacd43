import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { revokeApiKey } from "../../src/accounts/api-keys.ts";
import { manualClock } from "../support/clock.ts";
import { type Credentials, signedHeaders, startTestDaemon, type TestDaemon } from "../support/harness.ts";

// The daemon's clock is moved by hand: timestamps are exact and the 1 s key cache can be waited out.
const clock = manualClock();
let td: TestDaemon;

beforeAll(async () => {
  td = await startTestDaemon({ clock });
});
afterAll(async () => {
  await td.stop();
});

const nowS = () => Math.floor(clock.now() / 1000);

async function get(path: string, headers: Record<string, string>) {
  const res = await fetch(`${td.url}${path}`, { headers });
  return { status: res.status, contentType: res.headers.get("content-type"), body: (await res.json()) as any };
}

function signed(creds: Credentials, path: string, timestamp = nowS()) {
  return signedHeaders(creds, "GET", path.split("?")[0], "", timestamp);
}

describe("the signed API over a real daemon (docs/api.md)", () => {
  test("answers 200 to a correctly signed request", async () => {
    const c = await td.client();
    const res = await get("/v1/account", signed(c, "/v1/account"));
    expect(res.status).toBe(200);
    expect(res.body.account_id).toBe(c.accountId);
  });

  test("refuses a request without X-Api-Key with 401 Missing X-Api-Key", async () => {
    const c = await td.client();
    const { "X-Api-Key": _omitted, ...headers } = signed(c, "/v1/account");
    expect(await get("/v1/account", headers)).toEqual({
      status: 401,
      contentType: "application/json;charset=utf-8",
      body: { error: "Missing X-Api-Key" },
    });
  });

  test("refuses an unknown key with 401 Invalid API key", async () => {
    const stranger = { apiKey: "3f1c2b4a-0000-4000-8000-000000000000", secret: "f".repeat(64) };
    expect(await get("/v1/account", signed(stranger, "/v1/account"))).toMatchObject({ status: 401, body: { error: "Invalid API key" } });
  });

  test("refuses a key that is not a UUID with 401 Invalid API key", async () => {
    const c = await td.client();
    const res = await get("/v1/account", { ...signed(c, "/v1/account"), "X-Api-Key": "not-a-key" });
    expect(res).toMatchObject({ status: 401, body: { error: "Invalid API key" } });
  });

  test("refuses a revoked key with 401 Invalid API key once the 1 s key cache has passed", async () => {
    const c = await td.client();
    expect((await get("/v1/account", signed(c, "/v1/account"))).status).toBe(200);
    expect(await revokeApiKey(td.ctx.db, td.ctx.clock, c.apiKey)).toBe(true);
    clock.advance(1000);
    expect(await get("/v1/account", signed(c, "/v1/account"))).toEqual({
      status: 401,
      contentType: "application/json;charset=utf-8",
      body: { error: "Invalid API key" },
    });
  });

  test.each([-299, -300, 299, 300])("accepts a timestamp %d s from the server's clock", async (offset) => {
    const c = await td.client();
    expect((await get("/v1/account", signed(c, "/v1/account", nowS() + offset))).status).toBe(200);
  });

  test.each([-301, 301])("refuses a timestamp %d s from the server's clock with 401", async (offset) => {
    const c = await td.client();
    expect(await get("/v1/account", signed(c, "/v1/account", nowS() + offset))).toEqual({
      status: 401,
      contentType: "application/json;charset=utf-8",
      body: { error: "Missing or invalid X-Timestamp" },
    });
  });

  test.each(["12.5", "abc", "", "1e9", "+1763726400", "1763726400000"])("refuses the timestamp %p with 401 Missing or invalid X-Timestamp", async (ts) => {
    const c = await td.client();
    const res = await get("/v1/account", { ...signed(c, "/v1/account"), "X-Timestamp": ts });
    expect(res).toMatchObject({ status: 401, body: { error: "Missing or invalid X-Timestamp" } });
  });

  test("refuses a request without X-Timestamp with 401 Missing or invalid X-Timestamp", async () => {
    const c = await td.client();
    const { "X-Timestamp": _omitted, ...headers } = signed(c, "/v1/account");
    expect(await get("/v1/account", headers)).toMatchObject({ status: 401, body: { error: "Missing or invalid X-Timestamp" } });
  });

  test("refuses a request without X-Signature with 401 Missing X-Signature", async () => {
    const c = await td.client();
    const { "X-Signature": _omitted, ...headers } = signed(c, "/v1/account");
    expect(await get("/v1/account", headers)).toEqual({
      status: 401,
      contentType: "application/json;charset=utf-8",
      body: { error: "Missing X-Signature" },
    });
  });

  test("refuses a signature made with the wrong secret with 401 Invalid signature", async () => {
    const c = await td.client();
    const res = await get("/v1/account", signed({ apiKey: c.apiKey, secret: "0".repeat(64) }, "/v1/account"));
    expect(res).toEqual({ status: 401, contentType: "application/json;charset=utf-8", body: { error: "Invalid signature" } });
  });

  test("refuses a signature over another path with 401 Invalid signature", async () => {
    const c = await td.client();
    const res = await get("/v1/account", signed(c, "/v1/endpoints"));
    expect(res).toMatchObject({ status: 401, body: { error: "Invalid signature" } });
  });

  test("signs the path without the query string", async () => {
    const c = await td.client();
    const res = await get("/v1/account/usage?days=7", signedHeaders(c, "GET", "/v1/account/usage", "", nowS()));
    expect(res.status).toBe(200);
    expect(res.body.days).toBe(7);
  });

  test("a signature that includes the query string is refused", async () => {
    const c = await td.client();
    const res = await get("/v1/account/usage?days=7", signedHeaders(c, "GET", "/v1/account/usage?days=7", "", nowS()));
    expect(res).toMatchObject({ status: 401, body: { error: "Invalid signature" } });
  });

  test("checks the key before the timestamp: unknown key and bad timestamp give Invalid API key", async () => {
    const res = await get("/v1/account", {
      "X-Api-Key": "3f1c2b4a-0000-4000-8000-000000000001",
      "X-Timestamp": "abc",
      "X-Signature": "00",
    });
    expect(res).toMatchObject({ status: 401, body: { error: "Invalid API key" } });
  });
});
