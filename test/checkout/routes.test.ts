import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { CONTENT_SECURITY_POLICY } from "../../src/checkout/assets.ts";
import { checkoutRoutes } from "../../src/checkout/routes.ts";
import { blockMaker, bodies, createOrder, freshAddress, freshTxHash, ingestOk, readOrder, setPaymentWebhook, WEBHOOK_KEYS } from "../payments/support.ts";
import { manualClock } from "../support/clock.ts";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { recordingDb } from "../support/query-plan.ts";
import { until } from "../support/poll.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import { signIn } from "../cabinet/support.ts";
import { openEvents, readQrSvg } from "./support.ts";

// The checkout pages against a real daemon (docs/checkout.md): checkout_url on every order answer,
// the page, its JSON and its live updates, the headers that keep it safe, the not-found page, the
// per-address rate limit and the bounds on live-update streams. The daemon trusts X-Forwarded-For
// so each test speaks from addresses of its own, and its clock is held still, so the rate limit's
// second never ends under a slow machine.

const clock = manualClock();
let td: TestDaemon;
let shop: TestClient;
let sink: WebhookSink;
const block = blockMaker("eth", 1000);
let ipCounter = 0;
/** A client address no other request of the file used. */
const ip = () => `203.0.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;

const SAFE_HEADERS = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
};
const headersOf = (res: Response) => Object.fromEntries(Object.keys(SAFE_HEADERS).map((k) => [k, res.headers.get(k)]));
const get = (url: string, from = ip(), headers: Record<string, string> = {}) => fetch(url, { headers: { "x-forwarded-for": from, ...headers } });
const path = (url: string) => new URL(url).pathname;

beforeAll(async () => {
  sink = startWebhookSink();
  td = await startTestDaemon({
    clock,
    config: {
      server: { trust_proxy: true },
      rate_limit: { per_key_rps: 1_000_000 },
      checkout: { per_ip_rps: 5, max_streams_per_ip: 2, max_streams: 4 },
      networks: { eth: { family: "evm", confirmations: 2, chain_id: 1 } },
    },
  });
  shop = await td.client({ name: "shop", credits: 1_000_000 });
  await setPaymentWebhook(shop, sink.url);
});
afterAll(async () => {
  await td?.stop();
  await sink?.stop();
});

const order = (over: Record<string, unknown> = {}) =>
  createOrder(shop, { order_id: `o-${++ipCounter}`, network: "eth", address: freshAddress("c"), amount: "1.5", ...over });
const pay = (to: string, wei: string) => ({ hash: freshTxHash(), from: "0x1111111111111111111111111111111111111111", to, value: wei });

describe("checkout_url on every order", () => {
  test("create, get and list show the same address of the daemon's own page; description and redirect_url come back", async () => {
    const o = await order({ description: "Two × coffee beans, 1 kg", redirect_url: "https://shop.example/orders/7?x=1" });
    expect(o.checkout_url).toMatch(new RegExp(`^${td.url}/pay/[A-Za-z0-9_-]{32}$`));
    expect([o.description, o.redirect_url]).toEqual(["Two × coffee beans, 1 kg", "https://shop.example/orders/7?x=1"]);
    expect((await readOrder(shop, o.payment_id)).checkout_url).toBe(o.checkout_url);
    const listed = (await (await shop.request("GET", `/v1/payments?order_id=${o.order_id}`)).json()) as { payments: { checkout_url: string }[] };
    expect(listed.payments.map((p) => p.checkout_url)).toEqual([o.checkout_url]);
    // Tokens are random: nothing of the payment_id in them, and no two alike.
    const other = await order();
    expect(other.checkout_url).not.toBe(o.checkout_url);
    expect(o.checkout_url).not.toContain(o.payment_id.slice(4));
  });

  test("webhooks keep their fields: no checkout_url, description or redirect_url in them", async () => {
    const o = await order({ description: "d", redirect_url: "https://shop.example/" });
    const before = sink.received.length;
    await ingestOk(td, block([pay(o.address, "1")]));
    await sink.waitFor(before + 1);
    const mine = bodies(sink.received).filter((b) => b.payment_id === o.payment_id);
    expect(mine.length).toBeGreaterThan(0);
    for (const b of mine) expect(Object.keys(b)).toEqual(WEBHOOK_KEYS);
  });

  test.each([
    [{ description: "x".repeat(201) }, "description must be at most 200 characters"],
    [{ redirect_url: "/orders/7" }, "redirect_url must be an absolute http(s) URL"],
    [{ redirect_url: "javascript:alert(1)" }, "redirect_url must be an absolute http(s) URL"],
    [{ redirect_url: "ftp://shop.example/" }, "redirect_url must be an absolute http(s) URL"],
    [{ redirect_url: "https://" }, "redirect_url must be an absolute http(s) URL"],
    [{ redirect_url: "https://user:secret@shop.example/" }, "redirect_url must not carry a user name or password"],
    [{ redirect_url: "https://user@shop.example/" }, "redirect_url must not carry a user name or password"],
  ])("refuses %p with 400 naming the field, storing nothing", async (extra, error) => {
    const orderId = `refused-${++ipCounter}`;
    const res = await shop.request("POST", "/v1/payments", { order_id: orderId, network: "eth", address: freshAddress("d"), amount: "1", ...extra });
    expect([res.status, await res.json()]).toEqual([400, { error }]);
    const listed = (await (await shop.request("GET", `/v1/payments?order_id=${orderId}`)).json()) as { payments: unknown[] };
    expect(listed.payments).toEqual([]);
  });

  test("the cabinet's order page links the merchant to the payer's page", async () => {
    const o = await order();
    const page = await (await (await signIn(td, shop.accountId)).get(`/cabinet/payments/${o.payment_id}`)).text();
    expect(page).toContain(`<a href="${o.checkout_url}"><code>${o.checkout_url}</code></a>`);
  });

  test("a description counts characters, not UTF-16 units: 200 emoji fit", async () => {
    const o = await order({ description: "☕".repeat(100) + "🫘".repeat(100) });
    expect([...o.description].length).toBe(200);
  });
});

describe("the page", () => {
  test("shows the amount, the network, the address and a QR code of exactly the JSON's payment URI, escaping the merchant's text", async () => {
    const o = await order({ description: `<script>alert("x")</script> & more`, amount: "0.25" });
    const res = await get(o.checkout_url);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(headersOf(res)).toEqual(SAFE_HEADERS);
    const page = await res.text();
    const state = (await (await get(`${o.checkout_url}.json`)).json()) as Record<string, any>;
    expect(state.payment_uri).toBe(`ethereum:${o.address}@1?value=250000000000000000`);
    expect(readQrSvg(/<svg[^]*?<\/svg>/.exec(page)?.[0] ?? "")).toBe(state.payment_uri);
    expect(page).toContain('<span id="amount-value">0.25</span> ETH');
    expect(page).toContain(`<code id="address-value">${o.address}</code>`);
    expect(page).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; more");
    expect(page).not.toContain("<script>alert");
  });

  test("runs no inline script: its one script is a file of this daemon, served as JavaScript", async () => {
    const o = await order();
    const page = await (await get(o.checkout_url)).text();
    const scripts = [...page.matchAll(/<script([^>]*)>([^]*?)<\/script>/g)];
    expect(scripts.length).toBe(1);
    const [, attrs, body] = scripts[0];
    expect(body).toBe("");
    const src = /src="([^"]+)"/.exec(attrs)?.[1] as string;
    expect(src).toMatch(/^\/pay\/checkout\.js\?v=[A-Za-z0-9]+$/);
    expect(page).not.toMatch(/ on[a-z]+=/i);
    const js = await fetch(`${td.url}${src}`);
    expect([js.status, js.headers.get("content-type"), js.headers.get("x-content-type-options")]).toEqual([200, "text/javascript; charset=utf-8", "nosniff"]);
    expect(await js.text()).toContain("EventSource");
  });

  test("shows nothing of the account, the merchant's order id, the payment id or screening", async () => {
    const o = await order({ order_id: "internal-ref-77" });
    const page = await (await get(o.checkout_url)).text();
    const json = await (await get(`${o.checkout_url}.json`)).text();
    for (const text of [page, json]) {
      expect(text).not.toContain(shop.accountId);
      expect(text).not.toContain("internal-ref-77");
      expect(text).not.toContain(o.payment_id);
      expect(text).not.toContain(shop.apiKey);
      expect(text).not.toMatch(/aml|risk|screen/i);
    }
  });

  test("the JSON has exactly the documented fields", async () => {
    const o = await order({ amount: "2" });
    const res = await get(`${o.checkout_url}.json`);
    expect([res.status, res.headers.get("content-type"), headersOf(res)]).toEqual([200, "application/json; charset=utf-8", SAFE_HEADERS]);
    expect(await res.json()).toEqual({
      status: "waiting",
      amount: "2",
      amount_due: "2",
      asset: null,
      network: "eth",
      address: o.address,
      expires_at: o.expires_at,
      payment_uri: `ethereum:${o.address}@1?value=2000000000000000000`,
      confirmations: { have: 0, need: 2 },
      redirect_url: null,
    });
  });
});

describe("links that lead nowhere", () => {
  test.each([
    ["an unknown token of the right shape", "/pay/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"],
    ["a short one", "/pay/x"],
    ["one too long", `/pay/${"A".repeat(300)}`],
    ["not base64url", "/pay/%F0%9F%98%80%20%22%3C"],
    ["a payment id", "/pay/pay_0123456789abcdef01234567"],
    ["a path below a token", "/pay/AAAA/BBBB/CCCC"],
  ])("%s: the not-found page, as safe as a real one", async (_name, p) => {
    const res = await get(`${td.url}${p}`);
    expect([res.status, res.headers.get("content-type"), headersOf(res)]).toEqual([404, "text/html; charset=utf-8", SAFE_HEADERS]);
    expect(await res.text()).toContain("<h1>Payment page not found</h1>");
  });

  test("an unknown token's JSON and live updates are a JSON 404", async () => {
    for (const p of ["/pay/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA.json", "/pay/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/events"]) {
      const res = await get(`${td.url}${p}`);
      expect([res.status, await res.json()]).toEqual([404, { error: "Not found." }]);
    }
  });

  test("a miss runs the same statements as a hit, so its answer's time tells nothing", async () => {
    const o = await order();
    const statements: string[] = [];
    // Each statement's text: the values are bound apart from it.
    const app = checkoutRoutes({ ...td.daemon.deps, db: recordingDb(td.daemon.deps.db, (q) => statements.push(q.sql)) });
    const run = async (p: string) => {
      statements.length = 0;
      const res = await app.handle(new Request(`http://localhost${p}`, { headers: { "x-forwarded-for": ip() } }));
      await res.text();
      return { status: res.status, statements: [...statements] };
    };
    const token = path(o.checkout_url).slice("/pay/".length);
    const hit = await run(`/pay/${token}`);
    expect(hit.status).toBe(200);
    // The last: the token with its last character changed (to B, or C when it already ends in B).
    for (const miss of ["/pay/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "/pay/x", `/pay/${token.slice(0, -1)}${token.endsWith("B") ? "C" : "B"}`]) {
      const got = await run(miss);
      expect(got).toEqual({ status: 404, statements: hit.statements });
    }
    expect(hit.statements.length).toBe(2);
  });
});

describe("per-address rate limit", () => {
  test("the 6th request of one address in a second is 429 with Retry-After, page and JSON alike; another address is served", async () => {
    const o = await order();
    const from = ip();
    for (let i = 0; i < 5; i++) expect((await get(i % 2 ? `${o.checkout_url}.json` : o.checkout_url, from)).status).toBe(200);
    const page = await get(o.checkout_url, from);
    expect([page.status, page.headers.get("retry-after"), headersOf(page)]).toEqual([429, "1", SAFE_HEADERS]);
    expect(await page.text()).toContain("Too many requests");
    const json = await get(`${o.checkout_url}.json`, from);
    expect([json.status, json.headers.get("retry-after"), await json.json()]).toEqual([429, "1", { error: "Rate limit exceeded." }]);
    expect((await get(o.checkout_url)).status).toBe(200);
    // A second later (the clock held still until now) the address is served again.
    clock.advance(1000);
    expect((await get(o.checkout_url, from)).status).toBe(200);
  });
});

describe("live updates", () => {
  test("the stream starts with the page's state, follows each change, counts confirmations as the tip moves, and ends once paid", async () => {
    const o = await order({ amount: "1.5", redirect_url: "https://shop.example/done" });
    const events = await openEvents(`${o.checkout_url}/events`, { "x-forwarded-for": ip() });
    expect([events.status, events.headers.get("content-type"), headersOf(events as unknown as Response)]).toEqual([200, "text/event-stream; charset=utf-8", SAFE_HEADERS]);
    const first = await events.next();
    expect(first).toEqual((await (await get(`${o.checkout_url}.json`)).json()) as Record<string, unknown>);
    expect(first).toMatchObject({ status: "waiting", amount_due: "1.5" });

    await ingestOk(td, block([pay(o.address, "500000000000000000")]));
    expect(await events.next()).toMatchObject({ status: "seen", amount_due: "1", confirmations: { have: 1, need: 2 } });
    await ingestOk(td, block());
    expect(await events.next()).toMatchObject({ status: "underpaid", amount_due: "1", payment_uri: `ethereum:${o.address}@1?value=1000000000000000000` });
    await ingestOk(td, block([pay(o.address, "1000000000000000000")]));
    expect(await events.next()).toMatchObject({ status: "seen", amount_due: "0", payment_uri: null, confirmations: { have: 1, need: 2 } });
    await ingestOk(td, block());
    const last = await events.until((s) => s.status === "paid");
    expect(last).toMatchObject({ status: "paid", redirect_url: "https://shop.example/done", confirmations: { have: 2, need: 2 } });
    expect(await events.next()).toBe("closed");
    await until(async () => td.daemon.deps.checkout.size(), (n) => n === 0);
  });

  test("a final order's stream says so once and ends", async () => {
    const o = await order({ expires_in_seconds: 60 });
    clock.advance(61_000);
    await until(async () => (await readOrder(shop, o.payment_id)).status, (s) => s === "expired");
    const events = await openEvents(`${o.checkout_url}/events`, { "x-forwarded-for": ip() });
    expect(await events.next()).toMatchObject({ status: "expired", amount_due: "0", payment_uri: null });
    expect(await events.next()).toBe("closed");
  });

  test("streams are bounded per address (429) and in total (503), and a closed one frees its place", async () => {
    const o = await order();
    const url = `${o.checkout_url}/events`;
    const [a, b, c] = [ip(), ip(), ip()];
    const open = [await openEvents(url, { "x-forwarded-for": a }), await openEvents(url, { "x-forwarded-for": a })];
    for (const e of open) expect(e.status).toBe(200);
    const third = await get(url, a);
    expect([third.status, third.headers.get("retry-after"), await third.json()]).toEqual([
      429,
      "5",
      { error: `Too many live updates open from this address; poll ${path(o.checkout_url)}.json instead.` },
    ]);
    open.push(await openEvents(url, { "x-forwarded-for": b }), await openEvents(url, { "x-forwarded-for": b }));
    expect(open.map((e) => e.status)).toEqual([200, 200, 200, 200]);
    const over = await get(url, c);
    expect([over.status, await over.json()]).toEqual([503, { error: `Too many live updates open; poll ${path(o.checkout_url)}.json instead.` }]);
    open[0].close();
    await until(async () => td.daemon.deps.checkout.size(), (n) => n === 3);
    const again = await openEvents(url, { "x-forwarded-for": c });
    expect(again.status).toBe(200);
    for (const e of [...open, again]) e.close();
    await until(async () => td.daemon.deps.checkout.size(), (n) => n === 0);
  });
});
