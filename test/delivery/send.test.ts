import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chooseTarget, waitsForWebhook } from "../../src/delivery/route.ts";
import { attemptDelivery, type SendDeps } from "../../src/delivery/send.ts";
import { webhookKey } from "../../src/delivery/signer.ts";
import { systemClock } from "../../src/lib/clock.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";

const route = (o: Partial<{ webhook_url: string | null; webhook_enabled: number; payments_webhook_url: string | null }>) => ({
  webhook_url: null,
  webhook_enabled: 0,
  payments_webhook_url: null,
  webhook_secret_enc: "",
  ...o,
});

describe("where a delivery goes, read from the account at send time", () => {
  const W = "https://hooks.example.com/w";
  const P = "https://pay.example.com/p";
  test.each([
    ["event", "payment", { webhook_url: W, webhook_enabled: 1 }, { ok: true, url: W }],
    ["event", "block", { webhook_url: W, webhook_enabled: 0 }, { ok: false, code: "WEBHOOK_DISABLED" }],
    ["event", "payout", {}, { ok: false, code: "NO_WEBHOOK_URL" }],
    ["event", "payment", { webhook_url: W, webhook_enabled: 1, payments_webhook_url: P }, { ok: true, url: W }],
    ["payment", "payment_order", { webhook_url: W, webhook_enabled: 1, payments_webhook_url: P }, { ok: true, url: P }],
    ["payment", "payment_order", { payments_webhook_url: P }, { ok: true, url: P }],
    ["payment", "payment_order", { webhook_url: W, webhook_enabled: 1 }, { ok: true, url: W }],
    ["payment", "payment_order", { webhook_url: W, webhook_enabled: 0 }, { ok: false, code: "WEBHOOK_DISABLED" }],
    ["payment", "payment_order", {}, { ok: false, code: "NO_WEBHOOK_URL" }],
    ["test", "payment", { webhook_url: W, webhook_enabled: 0 }, { ok: true, url: W }],
    ["test", "block", { webhook_url: W, webhook_enabled: 1, payments_webhook_url: P }, { ok: true, url: W }],
    ["test", "other", {}, { ok: false, code: "NO_WEBHOOK_URL" }],
    ["test", "payment_order", { webhook_url: W, webhook_enabled: 1, payments_webhook_url: P }, { ok: true, url: P }],
    ["test", "payment_order", { webhook_url: W, webhook_enabled: 0 }, { ok: false, code: "WEBHOOK_DISABLED" }],
  ] as const)("a %s delivery of %s with account %j goes to %j", (kind, event_type, account, expected) => {
    expect(chooseTarget({ kind, event_type }, route(account))).toEqual(expected);
  });
});

describe("a delivery whose webhook is disabled waits for it instead of being attempted", () => {
  const W = "https://hooks.example.com/w";
  const P = "https://pay.example.com/p";
  test.each([
    ["event", "payment", { webhook_url: W, webhook_enabled: 0 }, true],
    ["event", "payment", { webhook_url: W, webhook_enabled: 1 }, false],
    ["event", "payment", { webhook_enabled: 0 }, false],
    ["payment", "payment_order", { webhook_url: W, webhook_enabled: 0 }, true],
    ["payment", "payment_order", { webhook_url: W, webhook_enabled: 0, payments_webhook_url: P }, false],
    ["test", "block", { webhook_url: W, webhook_enabled: 0 }, false],
    ["test", "payment_order", { webhook_url: W, webhook_enabled: 0 }, true],
  ] as const)("a %s delivery of %s with account %j waits: %p", (kind, event_type, account, expected) => {
    expect(waitsForWebhook({ kind, event_type }, route(account))).toBe(expected);
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
    const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
    const url = `http://127.0.0.1:${probe.port}/hook`;
    await probe.stop(true);
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
