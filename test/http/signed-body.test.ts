import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { createApp } from "../../src/http/app.ts";
import { type AppDeps, signatureDeps } from "../../src/http/deps.ts";
import { signature } from "../../src/http/plugins/signature.ts";
import { manualClock } from "../support/clock.ts";
import { type Credentials, signedHeaders, startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";

// A POST route shaped like every signed route module (`new Elysia().use(signature(...))`), mounted
// on the real app (error envelope, body limit) and served on a real socket, so the body path is
// proven independently of which feature routes exist yet.
const BODY_LIMIT = 256;
const clock = manualClock();
let td: TestDaemon;
let server: ReturnType<typeof echoApp>;
let url: string;
let client: TestClient;

beforeAll(async () => {
  td = await startTestDaemon({ clock, config: { server: { body_limit_bytes: BODY_LIMIT }, rate_limit: { per_key_rps: 1000 } } });
  server = echoApp(td.daemon.deps).listen({ hostname: "127.0.0.1", port: 0 });
  url = `http://127.0.0.1:${server.server!.port}`;
  client = await td.client();
});
afterAll(async () => {
  await server.stop();
  await td.stop();
});

/** The real app plus a signed POST route that echoes the parsed body. */
function echoApp(deps: AppDeps) {
  const echo = new Elysia()
    .use(signature(signatureDeps(deps)))
    .post("/v1/echo", ({ body, auth }) => ({ account_id: auth.accountId, body }));
  return createApp(deps).use(echo);
}

async function post(body: string, opts: { signedBody?: string; creds?: Credentials; contentType?: string | null } = {}) {
  const ts = Math.floor(clock.now() / 1000);
  const headers: Record<string, string> = signedHeaders(opts.creds ?? client, "POST", "/v1/echo", opts.signedBody ?? body, ts);
  if (opts.contentType !== null) headers["Content-Type"] = opts.contentType ?? "application/json";
  // A byte body gets no Content-Type from fetch (a string one would get text/plain).
  const res = await fetch(`${url}/v1/echo`, { method: "POST", body: new TextEncoder().encode(body), headers });
  return { status: res.status, body: await res.json() };
}

describe("signed request bodies", () => {
  test("a pretty-printed JSON body signed exactly as sent passes", async () => {
    const pretty = JSON.stringify({ network_slug: "eth", address: "0xabc" }, null, 2);
    expect(await post(pretty)).toEqual({
      status: 200,
      body: { account_id: client.accountId, body: { network_slug: "eth", address: "0xabc" } },
    });
  });

  test("the same body re-serialized after signing fails with 401 Invalid signature", async () => {
    const pretty = JSON.stringify({ network_slug: "eth", address: "0xabc" }, null, 2);
    const compact = JSON.stringify(JSON.parse(pretty));
    expect(await post(compact, { signedBody: pretty })).toEqual({ status: 401, body: { error: "Invalid signature" } });
  });

  test("a body sent without a Content-Type is still hashed as sent", async () => {
    expect(await post('{"a": 1}', { contentType: null })).toEqual({ status: 200, body: { account_id: client.accountId, body: { a: 1 } } });
  });

  test("a body signed as empty but sent non-empty fails", async () => {
    expect(await post('{"a":1}', { signedBody: "" })).toEqual({ status: 401, body: { error: "Invalid signature" } });
  });

  test("a body declared as text/plain is refused with 415 once the signature checks out", async () => {
    expect(await post('{"a": 2}', { contentType: "text/plain" })).toEqual({ status: 415, body: { error: "Content-Type must be application/json." } });
  });

  test("a signed malformed JSON body gets 400 Invalid JSON body.", async () => {
    expect(await post('{"network_slug": "eth",')).toEqual({ status: 400, body: { error: "Invalid JSON body." } });
  });

  test("a body nested 64 levels is parsed; 65 levels is 400 Invalid JSON body.", async () => {
    const nested = (levels: number) => "[".repeat(levels) + "]".repeat(levels);
    expect(await post(nested(64))).toEqual({ status: 200, body: { account_id: client.accountId, body: JSON.parse(nested(64)) } });
    expect(await post(nested(65))).toEqual({ status: 400, body: { error: "Invalid JSON body." } });
    // Brackets inside a string are text, not nesting.
    const text = { note: nested(100) };
    expect(await post(JSON.stringify(text))).toEqual({ status: 200, body: { account_id: client.accountId, body: text } });
  });

  test("a malformed body from a stranger gets the authentication error, not the parse error", async () => {
    const stranger = { apiKey: "3f1c2b4a-0000-4000-8000-000000000000", secret: "f".repeat(64) };
    expect(await post("{nope", { creds: stranger })).toEqual({ status: 401, body: { error: "Invalid API key" } });
    expect(await post("{nope", { signedBody: "{}" })).toEqual({ status: 401, body: { error: "Invalid signature" } });
  });

  test("a streamed body from a stranger is answered without being read", async () => {
    // A body that never ends: reading it would never finish.
    const stream = new ReadableStream({ start: (controller) => controller.enqueue(new TextEncoder().encode("[[[[")) });
    const res = await server.handle(new Request(`${url}/v1/echo`, { method: "POST", body: stream, headers: { "Content-Type": "application/json" }, duplex: "half" } as RequestInit));
    expect({ status: res.status, body: await res.json() }).toEqual({ status: 401, body: { error: "Missing X-Api-Key" } });
  });

  test("a body of exactly server.body_limit_bytes is accepted", async () => {
    const body = JSON.stringify({ pad: "x".repeat(BODY_LIMIT - 10) });
    expect(body.length).toBe(BODY_LIMIT);
    expect((await post(body)).status).toBe(200);
  });

  test("a body one byte over server.body_limit_bytes gets 413 with a JSON error", async () => {
    const body = JSON.stringify({ pad: "x".repeat(BODY_LIMIT - 9) });
    expect(await post(body)).toEqual({ status: 413, body: { error: `Request body exceeds ${BODY_LIMIT} bytes.` } });
  });

  test("a streamed body without Content-Length over the limit also gets 413", async () => {
    const chunk = new TextEncoder().encode(`{"pad":"${"x".repeat(BODY_LIMIT)}"}`);
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(chunk);
        controller.close();
      },
    });
    const headers = { ...signedHeaders(client, "POST", "/v1/echo", "", Math.floor(clock.now() / 1000)), "Content-Type": "application/json" };
    const res = await server.handle(new Request(`${url}/v1/echo`, { method: "POST", body: stream, headers, duplex: "half" } as RequestInit));
    expect({ status: res.status, body: await res.json() }).toEqual({ status: 413, body: { error: `Request body exceeds ${BODY_LIMIT} bytes.` } });
  });

  test("a streamed body is given up with 413 the moment it passes the limit, its end never waited for", async () => {
    // One chunk past the limit, and the stream never ends.
    const stream = new ReadableStream({ start: (controller) => controller.enqueue(new Uint8Array(BODY_LIMIT + 1).fill(0x20)) });
    const headers = { ...signedHeaders(client, "POST", "/v1/echo", "", Math.floor(clock.now() / 1000)), "Content-Type": "application/json" };
    const res = await server.handle(new Request(`${url}/v1/echo`, { method: "POST", body: stream, headers, duplex: "half" } as RequestInit));
    expect({ status: res.status, body: await res.json() }).toEqual({ status: 413, body: { error: `Request body exceeds ${BODY_LIMIT} bytes.` } });
  });
});

describe("signed bodies on a feature route over the daemon's own socket (POST /v1/address-watch/addresses)", () => {
  const ADDRESS = "0x00000000000000000000000000000000000000b2";

  async function postWatch(c: TestClient, sent: string, signedBody = sent) {
    const ts = Math.floor(clock.now() / 1000);
    const res = await fetch(`${td.url}/v1/address-watch/addresses`, {
      method: "POST",
      body: sent,
      headers: { "Content-Type": "application/json", ...signedHeaders(c, "POST", "/v1/address-watch/addresses", signedBody, ts) },
    });
    return { status: res.status, body: (await res.json()) as any };
  }

  test("a pretty-printed body signed as sent is accepted", async () => {
    const c = await td.client({ slots: 2 });
    const res = await postWatch(c, JSON.stringify({ network_slug: "eth", address: ADDRESS }, null, 2));
    expect(res.status).toBe(201);
    expect(res.body.watch_id).toStartWith("aw_");
  });

  test("the same body re-serialized after signing is refused with 401 Invalid signature", async () => {
    const c = await td.client({ slots: 2 });
    const pretty = JSON.stringify({ network_slug: "eth", address: ADDRESS }, null, 2);
    expect(await postWatch(c, JSON.stringify(JSON.parse(pretty)), pretty)).toEqual({ status: 401, body: { error: "Invalid signature" } });
  });

  test("a signed malformed body is refused with 400 Invalid JSON body.", async () => {
    const c = await td.client({ slots: 2 });
    expect(await postWatch(c, '{"network_slug": "eth", "address": ')).toEqual({ status: 400, body: { error: "Invalid JSON body." } });
  });

  test("a body over server.body_limit_bytes is refused with 413", async () => {
    const c = await td.client({ slots: 2 });
    const big = JSON.stringify({ network_slug: "eth", address: "x".repeat(BODY_LIMIT) });
    expect(await postWatch(c, big)).toEqual({ status: 413, body: { error: `Request body exceeds ${BODY_LIMIT} bytes.` } });
  });
});
