import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chooseTarget, type EndpointRoute, waitsForEndpoint } from "../../src/delivery/route.ts";
import { attemptDelivery, type SendDeps } from "../../src/delivery/send.ts";
import { webhookKey } from "../../src/delivery/signer.ts";
import { systemClock } from "../../src/lib/clock.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import { freePort } from "../support/free-port.ts";

const route = (o: Partial<EndpointRoute>): EndpointRoute => ({
  endpointId: "ep_1",
  url: null,
  enabled: false,
  secretEnc: "sealed",
  previousSecretEnc: null,
  previousSecretExpiresAt: null,
  ...o,
});

describe("where a delivery goes, read from its endpoint at send time", () => {
  const W = "https://hooks.example.com/w";
  const P = "https://pay.example.com/p";
  test.each([
    ["event", { url: W, enabled: true }, { ok: true, url: W }],
    ["event", { url: W, enabled: false }, { ok: false, code: "WEBHOOK_DISABLED" }],
    ["event", {}, { ok: false, code: "NO_WEBHOOK_URL" }],
    ["payment", { url: W, enabled: true }, { ok: true, url: W }],
    ["payment", { url: W, enabled: false }, { ok: false, code: "WEBHOOK_DISABLED" }],
    ["payment", { endpointId: null, url: P, enabled: true }, { ok: true, url: P }],
    ["payment", { endpointId: null, url: null, enabled: true }, { ok: false, code: "NO_WEBHOOK_URL" }],
    ["test", { url: W, enabled: false }, { ok: true, url: W }],
    ["test", {}, { ok: false, code: "NO_WEBHOOK_URL" }],
    ["test", { endpointId: null, url: P, enabled: true }, { ok: true, url: P }],
    ["event", { url: W, enabled: true, secretEnc: null }, { ok: false, code: "NO_WEBHOOK_URL" }],
  ] as const)("a %s delivery with route %j goes to %j", (kind, r, expected) => {
    expect(chooseTarget({ kind }, route(r))).toEqual(expected);
  });
});

describe("a delivery whose endpoint is disabled waits for it instead of being attempted", () => {
  const W = "https://hooks.example.com/w";
  test.each([
    ["event", { url: W, enabled: false }, true],
    ["event", { url: W, enabled: true }, false],
    ["event", { enabled: false }, false],
    ["payment", { url: W, enabled: false }, true],
    ["test", { url: W, enabled: false }, false],
  ] as const)("a %s delivery with route %j waits: %p", (kind, r, expected) => {
    expect(waitsForEndpoint({ kind }, route(r))).toBe(expected);
  });
});

describe("one delivery attempt against a real receiver", () => {
  let sink: WebhookSink;
  const deps = (o: Partial<SendDeps> = {}): SendDeps => ({
    fetch,
    resolveHost: async () => ["127.0.0.1"],
    clock: systemClock,
    allowPrivateTargets: true,
    // Room for a loaded machine; the timeout test sets its own short one.
    timeoutMs: 10_000,
    userAgent: "chainwatch/test",
    ...o,
  });
  const key = webhookKey("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
  const d = { id: "dlv_1", kind: "event", body: '{"a":1}' };
  const at = (url: string) => ({ ok: true as const, url });

  beforeAll(() => {
    sink = startWebhookSink();
  });
  afterAll(async () => {
    await sink.stop();
  });

  test("a 2xx answer succeeds and keeps the start of the response", async () => {
    sink.respond(() => new Response("thanks"));
    const r = await attemptDelivery(deps(), d, at(sink.url), key);
    expect(r).toMatchObject({ ok: true, url: sink.url, statusCode: 200, error: null, snippet: "thanks" });
  });

  test("a 500 answer fails as http 500 with the response kept", async () => {
    sink.respond(() => new Response("boom", { status: 500 }));
    expect(await attemptDelivery(deps(), d, at(sink.url), key)).toMatchObject({ ok: false, statusCode: 500, error: "http 500", snippet: "boom" });
  });

  test("keeps only the first 1 KiB of a long response", async () => {
    sink.respond(() => new Response("x".repeat(5000), { status: 400 }));
    const r = await attemptDelivery(deps(), d, at(sink.url), key);
    expect(r.snippet).toBe("x".repeat(1024));
  });

  test("a 302 is a failure and its Location is never requested", async () => {
    const before = sink.received.length;
    sink.respond(() => new Response(null, { status: 302, headers: { Location: sink.url.replace("/hook", "/moved") } }));
    expect(await attemptDelivery(deps(), d, at(sink.url), key)).toMatchObject({ ok: false, statusCode: 302, error: "redirect not followed" });
    expect(sink.received.slice(before).map((r) => r.path)).toEqual(["/hook"]);
  });

  test("a receiver that does not answer within timeout_ms fails as timeout", async () => {
    sink.respond(() => new Promise<Response>(() => {}));
    expect(await attemptDelivery(deps({ timeoutMs: 300 }), d, at(sink.url), key)).toMatchObject({ ok: false, statusCode: null, error: "timeout" });
  });

  test("a closed port fails as connection refused", async () => {
    // Below the kernel's ephemeral range: no other test's server or connection is handed it meanwhile.
    const url = `http://127.0.0.1:${freePort()}/hook`;
    expect(await attemptDelivery(deps(), d, at(url), key)).toMatchObject({ ok: false, statusCode: null, error: "connection refused" });
  });

  test("a host resolving to a private address is refused before any request when private targets are off", async () => {
    const before = sink.received.length;
    const asked: string[] = [];
    const resolveHost = async (h: string) => (asked.push(h), ["127.0.0.1"]);
    const url = sink.url.replace("127.0.0.1", "hooks.example.test");
    const r = await attemptDelivery(deps({ allowPrivateTargets: false, resolveHost }), d, at(url), key);
    expect(r).toMatchObject({ ok: false, url, statusCode: null, error: "private target" });
    expect(asked).toEqual(["hooks.example.test"]);
    expect(sink.received.length).toBe(before);
  });

  test("a host that does not resolve is refused as dns failure", async () => {
    const resolveHost = async () => {
      throw new Error("ENOTFOUND");
    };
    const r = await attemptDelivery(deps({ allowPrivateTargets: false, resolveHost }), d, at("https://nowhere.example.test/"), key);
    expect(r).toMatchObject({ ok: false, error: "dns failure" });
  });

  test("an account without a usable route fails without a request", async () => {
    const r = await attemptDelivery(deps(), d, { ok: false, code: "WEBHOOK_DISABLED" }, key);
    expect(r).toMatchObject({ ok: false, url: null, statusCode: null, error: "webhook disabled", snippet: null });
  });
});
