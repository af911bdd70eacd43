import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { attemptDelivery, type SendDeps } from "../../src/delivery/send.ts";
import { webhookKey } from "../../src/delivery/signer.ts";
import { systemClock } from "../../src/lib/clock.ts";
import { guardedFetch, pinnedRequest } from "../../src/net/guarded-fetch.ts";
import { checkWebhookTarget } from "../../src/net/target-guard.ts";
import { httpScreener } from "../../src/payments/aml/http.ts";
import { loopbackNetwork, rebindingResolver } from "../support/loopback-network.ts";

// A self-signed certificate for hooks.example.test (and nothing else), valid until 2126; test-only.
const FIXTURES = new URL("../fixtures/tls/", import.meta.url);
const cert = await Bun.file(new URL("hooks.example.test.crt", FIXTURES)).text();
const key = await Bun.file(new URL("hooks.example.test.key", FIXTURES)).text();

type Seen = { host: string | null; path: string; body: string };

/** A real receiver on 127.0.0.1 recording what reached it. */
function receiver(tls?: { cert: string; key: string }) {
  const seen: Seen[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    tls,
    async fetch(req) {
      const url = new URL(req.url);
      seen.push({ host: req.headers.get("host"), path: url.pathname + url.search, body: await req.text() });
      return Response.json({ risk_level: "low" });
    },
  });
  return { seen, port: server.port as number, stop: () => server.stop(true) };
}

let plain: ReturnType<typeof receiver>;
let secure: ReturnType<typeof receiver>;
beforeAll(() => {
  plain = receiver();
  secure = receiver({ cert, key });
});
afterAll(async () => {
  await plain.stop();
  await secure.stop();
});

describe("pinnedRequest reaches a name through the checked address", () => {
  test("over http: the connection goes to the address, Host and path stay those of the URL", async () => {
    const before = plain.seen.length;
    const [url, init] = pinnedRequest(new URL(`http://hooks.example.test:${plain.port}/hook?a=1`), "127.0.0.1", { method: "POST", body: "x" });
    expect(url).toBe(`http://127.0.0.1:${plain.port}/hook?a=1`);
    expect((await fetch(url, init)).status).toBe(200);
    expect(plain.seen.slice(before)).toEqual([{ host: `hooks.example.test:${plain.port}`, path: "/hook?a=1", body: "x" }]);
  });

  test("over https: the certificate is checked against the name, not the address", async () => {
    const before = secure.seen.length;
    const target = new URL(`https://hooks.example.test:${secure.port}/hook`);
    const [url, init] = pinnedRequest(target, "127.0.0.1", { method: "POST", body: "y", tls: { ca: cert } } as RequestInit);
    expect((await fetch(url, init)).status).toBe(200);
    expect(secure.seen.slice(before)).toEqual([{ host: `hooks.example.test:${secure.port}`, path: "/hook", body: "y" }]);
    // The same address without the name fails the certificate check: the name above did the work.
    const bare = fetch(`https://127.0.0.1:${secure.port}/hook`, { tls: { ca: cert } } as RequestInit);
    await expect(bare).rejects.toMatchObject({ code: "ERR_TLS_CERT_ALTNAME_INVALID" });
  });

  test("a v6 address is bracketed and a default port stays out of Host", () => {
    const [url, init] = pinnedRequest(new URL("https://hooks.example.test/x"), "2606:4700::1111", { headers: { "X-A": "1" } });
    expect(url).toBe("https://[2606:4700::1111]/x");
    const headers = new Headers(init.headers);
    expect([headers.get("host"), headers.get("x-a")]).toEqual(["hooks.example.test", "1"]);
    expect((init as BunFetchRequestInit).tls?.serverName).toBe("hooks.example.test");
  });

  test("without an address (IP literal, or private targets allowed) the request is left alone", () => {
    const init = { method: "POST" };
    expect(pinnedRequest(new URL("http://127.0.0.1:9/x"), null, init)).toEqual(["http://127.0.0.1:9/x", init]);
  });
});

describe("DNS rebinding: a name answering a public address, then 127.0.0.1", () => {
  const rebinding = (port: number) => `http://rebind.example.test:${port}/hook`;

  test("the test network is faithful: checking, then fetching by name, reaches 127.0.0.1", async () => {
    // What the daemon did before: the guard passes the public answer, the connection re-resolves.
    const resolve = rebindingResolver("93.184.216.34", "127.0.0.1");
    const net = loopbackNetwork(resolve);
    const before = plain.seen.length;
    const check = await checkWebhookTarget(rebinding(plain.port), { allowPrivate: false, resolve });
    expect(check.ok).toBe(true);
    expect((await net.fetch(rebinding(plain.port), { method: "POST", body: "leak" })).status).toBe(200);
    expect(plain.seen.length).toBe(before + 1);
  });

  test("guardedFetch resolves once and connects only to the address it checked", async () => {
    const resolve = rebindingResolver("93.184.216.34", "127.0.0.1");
    const net = loopbackNetwork(resolve);
    const before = plain.seen.length;
    const sent = guardedFetch({ fetch: net.fetch, resolve, allowPrivate: false }, rebinding(plain.port), { method: "POST", body: "x" });
    await expect(sent).rejects.toMatchObject({ code: "ECONNREFUSED" });
    expect(resolve.asked).toEqual(["rebind.example.test"]);
    expect(net.connections).toEqual([`93.184.216.34:${plain.port}`]);
    expect(plain.seen.length).toBe(before);
  });

  test("a webhook delivery never reaches the receiver on 127.0.0.1", async () => {
    // Two public answers: one when the URL was saved (PUT), one for the attempt's own check.
    const resolve = rebindingResolver("93.184.216.34", "127.0.0.1", 2);
    const net = loopbackNetwork(resolve);
    const before = plain.seen.length;
    expect((await checkWebhookTarget(rebinding(plain.port), { allowPrivate: false, resolve })).ok).toBe(true);
    const result = await attemptDelivery(delivererDeps({ fetch: net.fetch, resolveHost: resolve }), DELIVERY, { ok: true, url: rebinding(plain.port) }, KEY);
    expect(result).toMatchObject({ ok: false, statusCode: null, error: "connection refused" });
    expect(resolve.asked.length).toBe(2);
    expect(net.connections).toEqual([`93.184.216.34:${plain.port}`]);
    expect(plain.seen.length).toBe(before);
  });

  test("the AML http provider never reaches the receiver on 127.0.0.1", async () => {
    const resolve = rebindingResolver("93.184.216.34", "127.0.0.1");
    const net = loopbackNetwork(resolve);
    const before = plain.seen.length;
    const screen = httpScreener({ url: `http://rebind.example.test:${plain.port}/screen`, timeoutMs: 2000, allowPrivate: false, fetch: net.fetch, resolve });
    const outcome = await screen({ network: "eth", address: "0xabc", txHash: "0xfeed" });
    expect(outcome.ok).toBe(false);
    expect(net.connections).toEqual([`93.184.216.34:${plain.port}`]);
    expect(plain.seen.length).toBe(before);
  });

  test("the AML http provider refuses a name that resolves to a private address, sending nothing", async () => {
    const resolve = rebindingResolver("127.0.0.1", "127.0.0.1");
    const net = loopbackNetwork(resolve);
    const screen = httpScreener({ url: `http://aml.example.test:${plain.port}/screen`, timeoutMs: 2000, allowPrivate: false, fetch: net.fetch, resolve });
    expect(await screen({ network: "eth", address: "0xabc", txHash: null })).toEqual({ ok: false, code: "AML_UNAVAILABLE", error: "aml.http_url resolves to a private address" });
    expect(net.connections).toEqual([]);
  });
});

describe("with private targets allowed, nothing changes", () => {
  test("a delivery to a 127.0.0.1 receiver by name is sent", async () => {
    const before = plain.seen.length;
    const url = `http://localhost:${plain.port}/hook`;
    const result = await attemptDelivery(
      delivererDeps({ allowPrivateTargets: true, resolveHost: rebindingResolver("93.184.216.34", "127.0.0.1") }),
      DELIVERY,
      { ok: true, url },
      KEY,
    );
    expect(result).toMatchObject({ ok: true, statusCode: 200, error: null });
    expect(plain.seen.slice(before)).toEqual([{ host: `localhost:${plain.port}`, path: "/hook", body: DELIVERY.body }]);
  });

  test("the AML http provider screens against 127.0.0.1", async () => {
    const screen = httpScreener({ url: `http://127.0.0.1:${plain.port}/screen`, timeoutMs: 2000, allowPrivate: true });
    expect(await screen({ network: "eth", address: "0xabc", txHash: null })).toMatchObject({ ok: true, result: { risk_level: "low" } });
  });
});

const DELIVERY = { id: "dlv_rebind", kind: "event", body: '{"event":"x"}' };
const KEY = webhookKey("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");

function delivererDeps(o: Partial<SendDeps>): SendDeps {
  return { fetch, resolveHost: async () => [], clock: systemClock, allowPrivateTargets: false, timeoutMs: 2000, userAgent: "chainwatch/test", ...o };
}
