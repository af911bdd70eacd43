import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { storedTip } from "../../src/follow/core/chain-store.ts";
import { createOrder } from "../payments/support.ts";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { type Litecoind, startLitecoind } from "../support/litecoind.ts";
import { until } from "../support/poll.ts";
import { releaseChromium, sharedChromium } from "../support/chromium.ts";
import { checkReadable, headline, scanQr, screenshot, SLOW, stateOf, waitForHeadline } from "./browser.ts";

// A payer's checkout page in Chromium for an order on a real `litecoind -regtest` the daemon
// follows: a BIP-21 request with the network's own scheme, a short payment seen from the mempool
// (nothing more asked until its block says how much arrived), the rest, and paid; and the same page
// with JavaScript off, which shows everything and refreshes by a link.

let node: Litecoind;
let td: TestDaemon;
let shop: TestClient;
let browser: Browser;
let page: Page;
let plain: Page;

beforeAll(async () => {
  node = await startLitecoind();
  await node.createWallet("payer");
  await node.mine(101);
  td = await startTestDaemon({
    config: {
      rate_limit: { per_key_rps: 1000 },
      checkout: { per_ip_rps: 1000 },
      networks: {
        ltc: {
          family: "btc",
          decimals: 8,
          confirmations: 2,
          bech32_hrp: "rltc",
          p2pkh_version: 111,
          p2sh_version: 58,
          chain: "regtest",
          uri_scheme: "litecoin",
          symbol: "LTC",
          rpc_urls: [node.url],
          follow: true,
          start_height: 0,
          // A page waits seconds on Chromium anyway; a 50 ms poll cost the daemon and the node ~60 ms of CPU a second for the whole file.
          poll_interval_ms: 250,
        },
      },
    },
  });
  await caughtUp();
  shop = await td.client({ name: "shop", credits: 1_000_000 });
  browser = await sharedChromium();
  page = await (await browser.newContext({ viewport: { width: 360, height: 800 } })).newPage();
  plain = await (await browser.newContext({ viewport: { width: 360, height: 800 }, javaScriptEnabled: false })).newPage();
}, SLOW);

afterAll(async () => {
  await releaseChromium(browser);
  await td?.stop();
  await node?.stop();
});

async function caughtUp(): Promise<void> {
  const height = await node.rpc<number>("getblockcount");
  await until(async () => (await storedTip(td.ctx.db, "ltc"))?.height ?? -1, (h) => h >= height);
}

async function mine(n = 1): Promise<void> {
  await node.mine(n);
  await caughtUp();
}

describe("the checkout page of an LTC order on litecoind -regtest", () => {
  test(
    "a BIP-21 request; a short payment from the mempool, its block, underpaid, the rest, paid: all without a reload",
    async () => {
      const address = await node.newAddress("bech32");
      const order = await createOrder(shop, { order_id: "ltc-1", network: "ltc", address, amount: "0.3", redirect_url: "https://shop.example/ltc-1" });
      await page.goto(order.checkout_url);
      expect(await headline(page)).toBe("Waiting for your payment");
      expect(await page.locator("h1").innerText()).toBe("0.3 LTC on ltc");
      expect(await page.locator("#address-value").innerText()).toBe(address);
      expect(await scanQr(page)).toBe(`litecoin:${address}?amount=0.3`);
      await page.evaluate("window.__sameDocument = true");

      // 0.1 LTC, in the mempool: seen at once; nothing asked until a block says how much arrived.
      await node.send(address, "0.1");
      await waitForHeadline(page, "Payment seen, waiting for confirmations (0 of 2)");
      expect(await page.locator("svg.qr").count()).toBe(0);
      expect((await stateOf(order.checkout_url)).amount_due).toBe("0");
      await mine();
      await waitForHeadline(page, "Payment seen, waiting for confirmations (1 of 2)");
      expect(await page.getByText("That is less than the 0.3 LTC asked: 0.2 LTC is still due.").count()).toBe(1);
      await mine();
      await waitForHeadline(page, "Underpaid: 0.2 LTC still due");
      expect(await scanQr(page)).toBe(`litecoin:${address}?amount=0.2`);
      await checkReadable(page);

      // With JavaScript off the same page reads in full, and its link refreshes it.
      await plain.goto(order.checkout_url);
      expect(await plain.locator("#status h2").innerText()).toBe("Underpaid: 0.2 LTC still due");
      expect(await plain.locator("#amount-value").innerText()).toBe("0.2");
      expect(await plain.locator("#address-value").innerText()).toBe(address);
      // At most an hour left: "1:00:00" when the page renders in the second its expiry was set.
      expect(await plain.locator("#countdown").innerText()).toMatch(/^(1:00:00|[0-5]?\d:[0-5]\d) left$/);
      expect(await scanQr(plain)).toBe(`litecoin:${address}?amount=0.2`);
      // Copy buttons need the script: without it they are not offered, and the address is text to select.
      expect(await plain.locator("[data-copy]").count()).toBe(2);
      expect(await plain.locator("[data-copy]:visible").count()).toBe(0);
      expect(await plain.locator("#refresh a").isVisible()).toBe(true);
      await screenshot(plain, "underpaid-no-script-360");

      await node.send(address, "0.2");
      await mine();
      await waitForHeadline(page, "Payment seen, waiting for confirmations (1 of 2)");
      await mine();
      await waitForHeadline(page, "Paid. Thank you!");
      expect(await page.locator("a", { hasText: "Back to shop" }).getAttribute("href")).toBe("https://shop.example/ltc-1");
      expect(await page.evaluate("window.__sameDocument")).toBe(true);

      await plain.locator("#refresh a").click();
      await plain.waitForLoadState();
      expect(await plain.locator("#status h2").innerText()).toBe("Paid. Thank you!");
      expect(await plain.locator("a", { hasText: "Back to shop" }).getAttribute("href")).toBe("https://shop.example/ltc-1");
    },
    SLOW,
  );
});
