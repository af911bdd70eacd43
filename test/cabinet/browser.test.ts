import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { recordUsage } from "../../src/billing/usage.ts";
import { verifyWebhook } from "../../src/client/webhooks.ts";
import { runCli, until } from "../delivery/fixtures.ts";
import { blockMaker, createOrder, freshTxHash, ingestOk } from "../payments/support.ts";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { releaseChromium, sharedChromium } from "../support/chromium.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import { signInLink } from "./support.ts";
import { onPostgres, sameOnEveryDatabase } from "../support/postgres-only.ts";

// End to end in a real browser: Chromium's headless shell driven by playwright-core (test/support/chromium.ts),
// against a real daemon and real webhook receivers on 127.0.0.1. The PostgreSQL run skips it: what
// it checks is the browser's side (layout at 360 px, the keyboard, cookies across sites, a secret
// shown once), and every route it drives is checked on both databases by routes.test.ts,
// logs.test.ts and sign-in.test.ts.
// Screenshots are taken when $CABINET_SCREENSHOTS names a folder (docs/ when refreshing the
// README's); they assert nothing, and a run without them is seconds faster.

const WATCHED = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
// Chromium on a shared 2-core machine: a page step can take seconds; each test gets room.
const SLOW = 90_000;
const SHOTS = process.env.CABINET_SCREENSHOTS;

let td: TestDaemon;
let sink: WebhookSink;
let failing: WebhookSink;
let browser: Browser;
let shop: TestClient;
let ctxA: BrowserContext;
let a: Page;
let configPath: string;

async function screenshot(p: Page, name: string) {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  // The top of the page, at most 1400 px of it: enough to show it, small enough to commit.
  const height = Math.min(1400, (await p.evaluate("document.documentElement.scrollHeight")) as number);
  await p.screenshot({ path: join(SHOTS, `cabinet-${name}.png`), fullPage: true, clip: { x: 0, y: 0, width: 360, height } });
}

/** The delivery id a Test's answer names (`queued dlv_… Follow it …`). */
function queuedId(text: string): string {
  const id = /^queued (dlv_[0-9a-f]{24})/.exec(text)?.[1];
  if (!id) throw new Error(`no delivery id in ${JSON.stringify(text)}`);
  return id;
}

/** Every visible control has a label (or an aria-label), and nothing is wider than the 360 px viewport. */
async function checkPage(p: Page) {
  // In-page code is a string: this project's TypeScript has no DOM library.
  const unlabeled = await p.evaluate(`[...document.querySelectorAll("input:not([type=hidden]),select,textarea,button")]
    .filter((e) => !(e.labels && e.labels.length > 0) && !e.getAttribute("aria-label") && !(e.tagName === "BUTTON" && e.textContent.trim()))
    .map((e) => e.outerHTML)`);
  expect(unlabeled).toEqual([]);
  expect(await p.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(360);
}

/** The whole page fits the 360 px viewport, and so does `selector` itself: nothing in it scrolls sideways. */
async function fitsWithoutScrolling(p: Page, selector: string) {
  expect(await p.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(360);
  const box = (await p.evaluate(`(() => { const t = document.querySelector(${JSON.stringify(selector)}); const r = t.getBoundingClientRect();
    return { scroll: t.scrollWidth, client: t.clientWidth, right: r.right }; })()`)) as { scroll: number; client: number; right: number };
  expect(box.scroll).toBeLessThanOrEqual(box.client);
  expect(box.right).toBeLessThanOrEqual(360);
}

/**
 * A sign-in link printed by the real CLI, as an admin would run it. The first test signs in with
 * one; later ones make theirs in-process (the same link, without another CLI process).
 */
async function linkFor(account: string): Promise<string> {
  const out = await runCli(["cabinet", "link", "--account", account, "--ttl", "5m", "--json", "--config", configPath]);
  // stderr says only which database the command used.
  expect(out.stderr).toMatch(/^chainwatch: database \S+ \(config \S+ from --config\)\n$/);
  return (JSON.parse(out.stdout) as { url: string }).url;
}

beforeAll(async () => {
  if (onPostgres) return;
  sink = startWebhookSink();
  failing = startWebhookSink();
  failing.respond(() => new Response("receiver unavailable", { status: 500 }));
  td = await startTestDaemon({
    config: { delivery: { backoff_seconds: [3600], max_attempts: 1 }, networks: { eth: { family: "evm", confirmations: 2 } } },
  });
  configPath = join(td.dir, "cli.toml");
  writeFileSync(
    configPath,
    [
      "[database]",
      `url = "${td.config.database.url}"`,
      "[secrets]",
      `master_key_file = "${td.config.secrets.master_key_file}"`,
      "[cabinet]",
      `public_url = "${td.url}"`,
      "",
    ].join("\n"),
  );
  shop = await td.client({ name: "shop", slots: 3, credits: 100_000 });
  browser = await sharedChromium();
  ctxA = await browser.newContext({ viewport: { width: 360, height: 740 } });
  a = await ctxA.newPage();
  // Revoke and Delete ask first; the user says yes.
  a.on("dialog", (d) => void d.accept());
}, SLOW);

afterAll(async () => {
  await releaseChromium(browser);
  await td?.stop();
  await sink?.stop();
  await failing?.stop();
});

describe.skipIf(onPostgres)(sameOnEveryDatabase("the cabinet in a browser"), () => {
  test("the link's page waits for its button; pressing it signs in once and never again", async () => {
    const url = await linkFor("shop");
    await a.goto(url);
    // Nothing on the page submits by itself: once the network is idle, it is still the sign-in page.
    await a.waitForLoadState("networkidle");
    expect([a.url(), await a.textContent("h1"), await ctxA.cookies()]).toEqual([url, "Sign in", []]);
    await checkPage(a);
    await a.getByRole("button", { name: "Sign in as shop" }).click();
    await a.waitForURL(`${td.url}/cabinet/`);
    expect(await a.textContent("h1")).toBe("Overview");
    expect(await a.textContent("header")).toContain("shop");
    await checkPage(a);

    const stranger = await browser.newContext();
    const s = await stranger.newPage();
    const res = await s.goto(url);
    expect(res?.status()).toBe(410);
    expect(await s.textContent("[role=alert]")).toBe("This sign-in link is invalid, already used or expired.");
    expect((await s.goto(`${td.url}/cabinet/`))?.status()).toBe(401);
    await stranger.close();
  }, SLOW);

  test("a page of another site that posts its owner's link cannot sign this browser in to that account", async () => {
    const mallory = await td.client({ name: "mallory" });
    const token = new URL(await signInLink(td, mallory.accountId)).searchParams.get("token") as string;
    // Another origin on this machine: the form posts itself the moment the page loads.
    const attacker = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () =>
        new Response(
          `<!doctype html><form method="post" action="${td.url}/cabinet/login"><input type="hidden" name="token" value="${token}"></form><script>document.forms[0].submit()</script>`,
          { headers: { "content-type": "text/html" } },
        ),
    });
    try {
      const p = await ctxA.newPage();
      await p.goto(attacker.url.href);
      await p.waitForURL(`${td.url}/cabinet/login`);
      expect(await p.textContent("[role=alert]")).toBe("A sign-in must be confirmed on the sign-in page of this cabinet.");
      await p.goto(`${td.url}/cabinet/`);
      expect(await p.textContent("header")).toContain("Account shop");
      await p.close();
    } finally {
      attacker.stop(true);
    }
    // The link was not used.
    const unused = await td.ctx.db.selectFrom("cabinet_links").select("used_at").where("account_id", "=", (await td.ctx.db.selectFrom("accounts").select("id").where("name", "=", "mallory").executeTakeFirstOrThrow()).id).execute();
    expect(unused).toEqual([{ used_at: null }]);
  }, SLOW);

  test("a created key's secret is shown once, with a copy button, and is gone after a reload", async () => {
    await a.goto(`${td.url}/cabinet/keys`);
    await a.fill("#key-label", "checkout server");
    await a.click("text=Create key");
    const secret = (await a.textContent("#new-secret")) as string;
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    expect(await a.isVisible("button[data-copy=new-secret]")).toBe(true);
    expect(a.url()).toBe(`${td.url}/cabinet/keys`);
    await a.reload();
    expect(await a.$("#new-secret")).toBeNull();
    expect(await a.content()).not.toContain(secret);
    expect(await a.textContent("table")).toContain("checkout server");
    await checkPage(a);
    await screenshot(a, "keys");
  }, SLOW);

  test("adding and deleting an address updates the slot counter; the form works from the keyboard", async () => {
    await a.goto(`${td.url}/cabinet/addresses`);
    expect(await a.textContent("#slots")).toBe("0 of 3 address slots used.");
    await a.focus("#add-network");
    await a.keyboard.press("Tab");
    expect(await a.evaluate("document.activeElement.id")).toBe("add-address");
    await a.keyboard.type("0x1234");
    await a.keyboard.press("Enter");
    await a.waitForSelector("[role=alert]");
    expect(await a.textContent("[role=alert]")).toBe("Invalid address for network eth");
    await a.fill("#add-address", WATCHED);
    await a.keyboard.press("Enter");
    await a.waitForSelector("[role=status]");
    expect(await a.textContent("#slots")).toBe("1 of 3 address slots used.");
    await a.fill("#add-address", "0x52908400098527886e0f7030069857d2e4169ee7");
    await a.click("text=Add address");
    await a.locator("#slots", { hasText: /^2 of 3 address slots used\.$/ }).waitFor();
    await a.click("button[aria-label='Delete 0x52908400098527886e0f7030069857d2e4169ee7 on eth']");
    await a.locator("#slots", { hasText: /^1 of 3 address slots used\.$/ }).waitFor();
    expect(await a.textContent("[role=status]")).toBe("Address deleted; its slot is free.");
    await checkPage(a);
    await screenshot(a, "addresses");
  }, SLOW);

  test("Test on the webhook page queues at once and the receiver gets X-Webhook-Test: true", async () => {
    await a.goto(`${td.url}/cabinet/webhook`);
    await a.fill("#wh-url", sink.url);
    await a.check("input[name=enabled]");
    await a.click("text=Save webhook");
    expect(await a.textContent("[role=status]")).toBe("Webhook saved.");
    await a.selectOption("#test-event", "payment");
    await a.selectOption("#test-network", "eth");
    await a.click("button:text-is('Test')");
    await a.locator("#test-result", { hasText: /^queued dlv_/ }).waitFor();
    const id = queuedId((await a.textContent("#test-result")) as string);
    // The Test ran in the background: the page did not navigate.
    expect(a.url()).toBe(`${td.url}/cabinet/webhook`);
    await sink.waitFor(1);
    const got = sink.received.find((r) => r.headers["x-webhook-id"] === id);
    expect(got?.method).toBe("POST");
    expect(got?.headers["x-webhook-test"]).toBe("true");
    // The answer links the delivery it queued, and shows its result once the receiver answered.
    expect(await a.locator("#test-result a").getAttribute("href")).toBe(`/cabinet/deliveries/${id}`);
    await a.locator("#test-result .result", { hasText: /^succeeded: HTTP 200 in \d+ ms$/ }).waitFor();
    await a.click("#test-result a");
    await a.waitForURL(`${td.url}/cabinet/deliveries/${id}`);
    expect(await a.locator(".badge").first().textContent()).toBe("succeeded");
    await a.goto(`${td.url}/cabinet/webhook`);
    await checkPage(a);
    await screenshot(a, "webhook");
  }, SLOW);

  test("the webhook page lists every endpoint with its settings and health; each one's Test and Rotate work on it alone", async () => {
    const made = await shop.request("POST", "/v1/webhooks/endpoints", { url: `${sink.url}/orders`, description: "Order service", events: { block: false } });
    expect(made.status).toBe(201);
    const endpoint = ((await made.json()) as { endpoint_id: string }).endpoint_id;
    await a.goto(`${td.url}/cabinet/webhook`);
    const items = a.locator("#endpoints > li");
    expect(await items.count()).toBe(2);
    const item = a.locator(`#endpoint-${endpoint}`);
    const text = (await item.textContent()) as string;
    expect(text).toContain("Order service");
    expect(text).toContain(`${sink.url}/orders`);
    expect(text).toContain("payment, payout; payment orders");
    expect(await item.locator(".endpoint-state").getAttribute("data-state")).toBe("healthy");
    // The default endpoint's entry says it is the one the settings above set.
    expect(await items.first().textContent()).toContain("default");

    await item.locator("select[name=event]").selectOption("payment_order");
    await item.locator("button:text-is('Test')").click();
    await item.locator("output", { hasText: /^queued dlv_/ }).waitFor();
    const id = queuedId((await item.locator("output").textContent()) as string);
    expect(a.url()).toBe(`${td.url}/cabinet/webhook`);
    const got = await until(
      async () => sink.received.find((r) => r.headers["x-webhook-id"] === id),
      (r) => r !== undefined,
    );
    expect(got?.path).toBe("/hook/orders");
    expect(got?.headers["x-webhook-test"]).toBe("true");

    await item.locator("select[name=grace_seconds]").selectOption("0");
    await item.locator("button:text-is('Rotate secret')").click();
    expect(await a.textContent("#shown-secret-h")).toBe(`New secret of ${endpoint}`);
    const secret = (await a.textContent("#webhook-secret")) as string;
    expect(secret).toMatch(/^whsec_/);
    // The new secret signs that endpoint's next webhook; the default endpoint's is untouched.
    const again = await shop.request("POST", `/v1/webhooks/endpoints/${endpoint}/test`, { event: "payment", network: "eth" });
    const next = ((await again.json()) as { delivery_id: string }).delivery_id;
    const signed = await until(
      async () => sink.received.find((r) => r.headers["x-webhook-id"] === next),
      (r) => r !== undefined,
    );
    expect(await verifyWebhook(signed!.headers, signed!.body, secret)).toMatchObject({ type: "payment" });
    await expect(verifyWebhook(signed!.headers, signed!.body, shop.webhookSecret)).rejects.toThrow();
    await checkPage(a);
  }, SLOW);

  test("the deliveries log lists a failing delivery; its page shows every attempt at 360 px, and Resend from the keyboard adds one", async () => {
    // A long answer without spaces: the response preview must wrap, not widen the page.
    failing.respond(() => new Response(`receiver unavailable: ${"0123456789abcdef".repeat(40)}`, { status: 500 }));
    await a.goto(`${td.url}/cabinet/webhook`);
    await a.fill("#wh-url", failing.url);
    await a.click("text=Save webhook");
    await a.selectOption("#test-event", "block");
    await a.selectOption("#test-network", "btc");
    await a.click("button:text-is('Test')");
    await a.locator("#test-result", { hasText: /^queued dlv_/ }).waitFor();
    const id = queuedId((await a.textContent("#test-result")) as string);
    const row = () => td.ctx.db.selectFrom("deliveries").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    await until(row, (d) => d.status === "failed");
    // The Test's answer shows the failure once it is recorded (its one attempt: max_attempts 1).
    await a.locator("#test-result .result", { hasText: /^failed: HTTP 500 in \d+ ms$/ }).waitFor();

    await a.goto(`${td.url}/cabinet/deliveries`);
    const listed = a.locator(`tr#${id}`);
    expect(await listed.locator(".badge").textContent()).toBe("failed");
    expect(await listed.locator("td[data-label=Attempts]").textContent()).toBe("1");
    expect(await listed.locator("td[data-label='Last code']").textContent()).toBe("500");
    await checkPage(a);
    await screenshot(a, "deliveries");

    // From the keyboard: the row's link opens the delivery.
    await listed.locator("a").focus();
    await a.keyboard.press("Enter");
    await a.waitForURL(`${td.url}/cabinet/deliveries/${id}`);
    const attempts = a.locator("table.attempts tbody tr");
    expect(await attempts.count()).toBe(1);
    expect(await attempts.locator("td.result").textContent()).toBe("HTTP 500");
    expect(await attempts.locator("td[data-label=Duration]").textContent()).toMatch(/^\d+ ms$/);
    expect(await attempts.locator("pre").textContent()).toStartWith("receiver unavailable: 0123456789abcdef");
    expect(await a.textContent("#attempt-count")).toMatch(/^1 attempt · /);
    await fitsWithoutScrolling(a, "table.attempts");
    await checkPage(a);

    await a.getByRole("button", { name: `Resend ${id}` }).focus();
    await a.keyboard.press("Enter");
    await a.waitForSelector("[role=status]");
    expect(await a.textContent("[role=status]")).toBe(`Re-queued ${id}.`);
    expect(a.url()).toBe(`${td.url}/cabinet/deliveries/${id}`);
    await failing.waitFor(2);
    const logged = () => td.ctx.db.selectFrom("delivery_attempts").select("id").where("delivery_id", "=", id).execute();
    await until(async () => ({ d: await row(), n: (await logged()).length }), ({ d, n }) => d.status === "failed" && n === 2);
    await a.reload();
    // The count is the log's length, and the second attempt says it followed a re-queue.
    expect(await a.textContent("#attempt-count")).toMatch(/^2 attempts · /);
    expect(await attempts.locator("td[data-label='#']").allTextContents()).toEqual(["1", "2 (re-queued)"]);
    await fitsWithoutScrolling(a, "table.attempts");
    await checkPage(a);
    await screenshot(a, "delivery");
    failing.respond(() => new Response("receiver unavailable", { status: 500 }));
  }, SLOW);

  test("events are listed a page at a time; an order's lifecycle reads as a timeline", async () => {
    await a.goto(`${td.url}/cabinet/webhook`);
    await a.fill("#wh-url", sink.url);
    await a.click("text=Save webhook");
    const block = blockMaker("eth", 2_000);
    const watched = WATCHED.toLowerCase();
    const payTo = "0x00000000000000000000000000000000000000c1";
    const order = await createOrder(shop, { order_id: "order-1001", network: "eth", address: payTo, amount: "0.25" });
    const txs = Array.from({ length: 30 }, (_, i) => ({ hash: freshTxHash(), from: "0x1111111111111111111111111111111111111111", to: watched, value: String((i + 1) * 10 ** 15) }));
    txs.push({ hash: freshTxHash(), from: "0x2222222222222222222222222222222222222222", to: payTo, value: "250000000000000000" });
    await ingestOk(td, block(txs));
    await ingestOk(td, block([]));
    const paid = await until(
      () => td.ctx.db.selectFrom("payments").select("status").where("id", "=", order.payment_id).executeTakeFirstOrThrow(),
      (o) => o.status === "paid",
    );
    expect(paid.status).toBe("paid");

    await a.goto(`${td.url}/cabinet/events`);
    expect(await a.locator("tbody tr").count()).toBe(25);
    await checkPage(a);
    await screenshot(a, "events");
    await a.getByRole("link", { name: "Older →" }).click();
    // 30 payments and 2 block events, newest first: 7 on the second page, and nothing older.
    expect(await a.locator("tbody tr").count()).toBe(7);
    expect(await a.getByRole("link", { name: "Older →" }).count()).toBe(0);
    await a.getByRole("link", { name: "← Newer" }).click();
    expect(await a.locator("tbody tr").count()).toBe(25);
    await checkPage(a);

    // Filter by a transaction from the keyboard, then open its event.
    await a.focus("#f-tx");
    await a.keyboard.type(txs[3].hash);
    await a.keyboard.press("Enter");
    await a.waitForURL(/tx_hash=/);
    expect(await a.locator("tbody tr").count()).toBe(1);
    await a.locator("tbody tr a").focus();
    await a.keyboard.press("Enter");
    await a.waitForURL(/\/cabinet\/events\/evt_/);
    expect(JSON.parse((await a.textContent("#event-json")) as string)).toMatchObject({ type: "payment", tx_hash: txs[3].hash, amount: "0.004" });
    await checkPage(a);

    await a.goto(`${td.url}/cabinet/payments`);
    expect(await a.textContent("tbody")).toContain("order-1001");
    await checkPage(a);
    await screenshot(a, "payments");
    await a.click("text=order-1001");
    expect(await a.textContent("h1")).toBe("Order order-1001");
    const steps = await a.locator("ol.timeline > li > strong").allTextContents();
    expect(steps).toEqual(["pending", "seen", "aml_check", "paid"]);
    await checkPage(a);
    await screenshot(a, "payment");
  }, SLOW);

  test("a long order id of wide letters wraps on its order's page instead of widening it past 360 px", async () => {
    // One word, as wide as its letters make it: a heading breaks it rather than scroll sideways.
    const orderId = `order-${"MW".repeat(30)}`;
    const order = await createOrder(shop, { order_id: orderId, network: "eth", address: "0x00000000000000000000000000000000000000c2", amount: "1" });
    await a.goto(`${td.url}/cabinet/payments/${order.payment_id}`);
    expect(await a.textContent("h1")).toBe(`Order ${orderId}`);
    await checkPage(a);
  }, SLOW);

  test("the overview shows plan, credits and the usage chart; its weight and first byte are measured", async () => {
    // Some history: the chart draws every one of the 30 days, oldest first.
    const now = td.ctx.clock.now();
    for (const [daysAgo, credits] of [[29, 400], [20, 1200], [12, 650], [5, 2000], [1, 900]])
      await recordUsage(td.ctx.db, shop.accountId, now - daysAgo * 86_400_000, { credits, deliveries: credits / 50, events: credits / 50 });
    await a.goto(`${td.url}/cabinet/`);
    expect(await a.textContent("#credits")).toMatch(/^\d+$/);
    expect(await a.locator("svg.chart rect").count()).toBe(30);
    expect(await a.locator("svg.chart rect >> nth=0").locator("title").textContent()).toMatch(/: 400 credits, 8 deliveries, 8 events$/);
    expect(await a.locator("svg.chart rect >> nth=24").locator("title").textContent()).toMatch(/: 2000 credits, 40 deliveries, 40 events$/);
    const timing = (await a.evaluate(`(() => {
      const n = performance.getEntriesByType("navigation")[0];
      return { ttfbMs: n.responseStart - n.requestStart, bytes: n.encodedBodySize };
    })()`)) as { ttfbMs: number; bytes: number };
    console.log(`cabinet overview: ${timing.bytes} bytes, time to first byte ${timing.ttfbMs.toFixed(1)} ms`);
    expect(timing.bytes).toBeLessThan(30_000);
    await checkPage(a);
    await screenshot(a, "overview");
  }, SLOW);

  test("a form post without the CSRF token is refused; with it, the same post works", async () => {
    const form = { network_slug: "btc", address: "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq" };
    const refused = await a.request.post(`${td.url}/cabinet/addresses`, { form });
    expect(refused.status()).toBe(403);
    expect(await refused.text()).toContain("Missing or invalid CSRF token.");
    await a.goto(`${td.url}/cabinet/addresses`);
    const csrf = (await a.getAttribute("input[name=csrf]", "value")) as string;
    const accepted = await a.request.post(`${td.url}/cabinet/addresses`, { form: { ...form, csrf } });
    expect(accepted.status()).toBe(200);
  }, SLOW);

  test("an account whose credits cannot pay sees a banner above its overview at 360 px, gone once credits are added", async () => {
    const broke = await td.client({ name: "broke", slots: 1, credits: 0 });
    const address = "0x7a16ff8270133f063aab6c9977183d9e72835428";
    expect((await broke.request("POST", "/v1/address-watch/addresses", { network_slug: "bsc", address })).status).toBe(201);
    expect((await broke.request("PUT", "/v1/address-watch/webhook", { url: sink.url, enabled: true, events: { block: false } })).status).toBe(200);
    await ingestOk(td, {
      network: "bsc",
      height: 700,
      hash: `0x${"c".repeat(64)}`,
      parent_hash: `0x${"d".repeat(64)}`,
      timestamp: 1_763_750_700,
      transactions: [{ hash: `0x${"e".repeat(64)}`, from: WATCHED.toLowerCase(), to: address, value: "1000" }],
    });
    const deliveries = () => td.ctx.db.selectFrom("deliveries").select("status").where("account_id", "=", broke.accountId).execute();
    await until(deliveries, (ds) => ds.length === 1 && ds[0].status === "paused");

    const ctxC = await browser.newContext({ viewport: { width: 360, height: 740 } });
    const c = await ctxC.newPage();
    await c.goto(await signInLink(td, broke.accountId));
    await c.getByRole("button", { name: "Sign in as broke" }).click();
    await c.waitForURL(`${td.url}/cabinet/`);
    const banner = c.locator("#credits-held");
    expect(await banner.isVisible()).toBe(true);
    expect(await banner.textContent()).toBe(
      "Deliveries held: out of credits. 1 webhook delivery waits because the balance (0 credits) cannot pay for it. Nothing is lost: once the operator adds credits, held deliveries go out.",
    );
    // Above everything else the page says, and within the narrow screen.
    expect(await c.evaluate(`document.querySelector("main h1").nextElementSibling.id`)).toBe("credits-held");
    await fitsWithoutScrolling(c, "#credits-held");
    expect(await c.textContent("#notices")).toContain("Webhook deliveries are held");
    await checkPage(c);

    expect((await runCli(["accounts", "credit", "broke", "--add", "1000", "--config", configPath])).code).toBe(0);
    await until(deliveries, (ds) => ds[0].status === "succeeded");
    await c.reload();
    expect(await c.locator("#credits-held").count()).toBe(0);
    expect(await c.textContent("main")).not.toContain("Webhook deliveries are held");
    await ctxC.close();
  }, SLOW);

  test("another account's session cannot read this account's pages", async () => {
    const other = await td.client({ name: "other", slots: 1 });
    const ctxB = await browser.newContext({ viewport: { width: 360, height: 740 } });
    const b = await ctxB.newPage();
    await b.goto(await signInLink(td, other.accountId));
    await b.getByRole("button", { name: "Sign in as other" }).click();
    await b.waitForURL(`${td.url}/cabinet/`);
    expect(await b.textContent("header")).toContain("other");
    // A link to another account, opened in this browser, asks before it replaces the session.
    await b.goto(await signInLink(td, shop.accountId));
    expect(await b.textContent("main p")).toBe("You are signed in as other. Continue as shop?");
    expect(await b.getByRole("button", { name: "Sign out of other and continue as shop" }).count()).toBe(1);
    const order = await td.ctx.db.selectFrom("payments").select("id").where("order_id", "=", "order-1001").executeTakeFirstOrThrow();
    const res = await b.goto(`${td.url}/cabinet/payments/${order.id}`);
    expect(res?.status()).toBe(404);
    expect(await b.textContent("[role=alert]")).toBe("Payment not found.");
    for (const path of ["/cabinet/addresses", "/cabinet/payments", "/cabinet/events", "/cabinet/deliveries", "/cabinet/keys"]) {
      await b.goto(`${td.url}${path}`);
      const text = await b.content();
      expect([path, text.includes(WATCHED.toLowerCase()) || text.includes("order-1001") || text.includes(shop.apiKey)]).toEqual([path, false]);
    }
    await ctxB.close();
  }, SLOW);
});
