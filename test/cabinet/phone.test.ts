import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { until } from "../delivery/fixtures.ts";
import { blockMaker, freshTxHash, ingestOk } from "../payments/support.ts";
import { startTestDaemon, type TestDaemon } from "../support/harness.ts";
import { releaseChromium, sharedChromium } from "../support/chromium.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import { signInLink } from "./support.ts";
import { onPostgres, sameOnEveryDatabase } from "../support/postgres-only.ts";

// The cabinet on a phone and from the keyboard, in Chromium's headless shell at 360 px (as browser.test.ts
// drives it): the first Tab stop skips the header and the navigation, and a full page of deliveries
// reads as a compact list, each delivery two short lines. Skipped on PostgreSQL, as browser.test.ts
// is: layout and focus are the browser's, the pages' database work is checked by routes.test.ts.

const SLOW = 90_000;
const WATCHED = "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed";

let td: TestDaemon;
let sink: WebhookSink;
let browser: Browser;
let page: Page;

/** What the browser's focus is on: its tag, its text, and whether it is inside <main>. */
const focused = (p: Page) =>
  p.evaluate(`(() => { const e = document.activeElement; return { tag: e.tagName, text: e.textContent.trim(), inMain: e.closest("main") !== null }; })()`) as Promise<{
    tag: string;
    text: string;
    inMain: boolean;
  }>;

beforeAll(async () => {
  if (onPostgres) return;
  sink = startWebhookSink();
  td = await startTestDaemon({ config: { delivery: { allow_private_targets: true } } });
  const shop = await td.client({ name: "phone-shop", slots: 1, credits: 1_000_000 });
  expect((await shop.request("PUT", "/v1/address-watch/webhook", { url: sink.url, enabled: true, events: { block: false } })).status).toBe(200);
  expect((await shop.request("POST", "/v1/address-watch/addresses", { network_slug: "eth", address: WATCHED })).status).toBe(201);
  // A page of deliveries and more: 60 payments in one block.
  const txs = Array.from({ length: 60 }, (_, i) => ({ hash: freshTxHash(), from: "0x1111111111111111111111111111111111111111", to: WATCHED, value: String((i + 1) * 10 ** 15) }));
  await ingestOk(td, blockMaker("eth", 5_000)(txs));
  await until(
    () => td.ctx.db.selectFrom("deliveries").select("status").execute(),
    (rows) => rows.length === 60 && rows.every((r) => r.status === "succeeded"),
  );
  browser = await sharedChromium();
  page = await (await browser.newContext({ viewport: { width: 360, height: 740 } })).newPage();
  await page.goto(await signInLink(td, shop.accountId));
  await page.getByRole("button", { name: "Sign in as phone-shop" }).click();
  await page.waitForURL(`${td.url}/cabinet/`);
}, SLOW);

afterAll(async () => {
  await releaseChromium(browser);
  await td?.stop();
  await sink?.stop();
});

describe.skipIf(onPostgres)(sameOnEveryDatabase("the cabinet at 360 px, from the keyboard"), () => {
  test("the first Tab stop is a skip link; following it, the next Tab lands in the page's content, past Sign out and the navigation", async () => {
    await page.goto(`${td.url}/cabinet/deliveries`);
    await page.keyboard.press("Tab");
    expect(await focused(page)).toEqual({ tag: "A", text: "Skip to content", inMain: false });
    // Shown while it has the focus, so a sighted keyboard user sees where the first Tab went.
    const box = await page.locator("a.skip").boundingBox();
    expect(box && box.width > 20 && box.height > 10).toBe(true);
    await page.keyboard.press("Enter");
    await page.keyboard.press("Tab");
    expect(await focused(page)).toMatchObject({ inMain: true });
  }, SLOW);

  test("the skip link takes no room until it is focused", async () => {
    await page.goto(`${td.url}/cabinet/`);
    const box = await page.locator("a.skip").boundingBox({ timeout: 5000 });
    expect(box === null || (box.width <= 1 && box.height <= 1)).toBe(true);
  }, SLOW);

  test("a page of 50 deliveries is two lines a delivery: badge, event and network, then when, attempts and the last code", async () => {
    await page.goto(`${td.url}/cabinet/deliveries`);
    const rows = page.locator("table.deliveries tbody tr");
    expect(await rows.count()).toBe(50);
    const lineHeight = (await page.evaluate(`parseFloat(getComputedStyle(document.querySelector("table.deliveries td")).lineHeight)`)) as number;
    const heights = (await page.evaluate(`[...document.querySelectorAll("table.deliveries tbody tr")].map((r) => r.getBoundingClientRect().height)`)) as number[];
    const tallest = Math.max(...heights);
    // Two lines of text and the row's padding; three lines would not fit.
    expect(tallest).toBeLessThan(3 * lineHeight);
    expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(360);
    // Each row still says everything: a status badge, the event linked to its page, the network, and the last code.
    const first = rows.first();
    expect(await first.locator(".badge").textContent()).toBe("succeeded");
    expect(await first.locator("a").textContent()).toBe("payment");
    expect(await first.locator("td[data-label=Network]").textContent()).toBe("eth");
    expect(await first.locator("td[data-label=Attempts]").textContent()).toBe("1");
    expect(await first.locator("td[data-label='Last code']").textContent()).toBe("200");
  }, SLOW);
});
