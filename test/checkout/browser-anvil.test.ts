import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Address } from "viem";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { storedTip } from "../../src/follow/core/chain-store.ts";
import { createOrder } from "../payments/support.ts";
import { type Anvil, startAnvil } from "../support/anvil.ts";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { until } from "../support/poll.ts";
import { releaseChromium, sharedChromium } from "../support/chromium.ts";
import { checkReadable, headline, scanQr, screenshot, SLOW, stateOf, waitForHeadline } from "./browser.ts";

// A payer's checkout page in Chromium, for an order on a real anvil node that the daemon follows:
// the page shows the amount, the address and a QR code of the payment request; the payer pays too
// little, then the rest; the page follows seen → confirmations → underpaid → seen → paid by
// itself (never reloaded), and then offers the way back to the shop.

const WEI = 1_000_000_000_000_000_000n;
const PAYEE = "0x00000000000000000000000000000000c0ffee01";

let anvil: Anvil;
let td: TestDaemon;
let shop: TestClient;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  anvil = await startAnvil();
  td = await startTestDaemon({
    config: {
      rate_limit: { per_key_rps: 1000 },
      checkout: { per_ip_rps: 1000 },
      // A page waits seconds on Chromium anyway; a 50 ms poll cost the daemon and the node ~60 ms of CPU a second for the whole file.
      networks: { eth: { family: "evm", decimals: 18, confirmations: 3, chain_id: 31337, rpc_urls: [anvil.url], follow: true, start_height: 0, poll_interval_ms: 250 } },
    },
  });
  shop = await td.client({ name: "shop", credits: 1_000_000 });
  browser = await sharedChromium();
  context = await browser.newContext({ viewport: { width: 360, height: 800 } });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: td.url });
  page = await context.newPage();
}, SLOW);

afterAll(async () => {
  await releaseChromium(browser);
  await td?.stop();
  await anvil?.stop();
});

/** Mines `n` empty blocks and waits until the daemon has stored them. */
async function mine(n: number): Promise<void> {
  await anvil.test.mine({ blocks: n });
  const head = Number(await anvil.public.getBlockNumber());
  await until(async () => (await storedTip(td.ctx.db, "eth"))?.height ?? -1, (h) => h >= head);
}

/** Sends `wei` to the order's address from anvil's first account; resolves once mined. */
async function pay(wei: bigint): Promise<void> {
  await anvil.mined(await anvil.sendEth(anvil.accounts[0], PAYEE as Address, wei));
}

describe("the checkout page of an ETH order on anvil", () => {
  test(
    "shows the request, follows an underpayment and the rest to paid without a reload, then links back to the shop",
    async () => {
      const order = await createOrder(shop, {
        order_id: "anvil-1",
        network: "eth",
        address: PAYEE,
        amount: "1.5",
        description: "Order 1042 · 2 × espresso beans, 1 kg",
        redirect_url: "https://shop.example/orders/1042",
        expires_in_seconds: 1800,
      });
      await page.goto(order.checkout_url);
      expect(await headline(page)).toBe("Waiting for your payment");
      expect(await page.locator("h1").innerText()).toBe("1.5 ETH on eth");
      expect(await page.locator("#amount-value").innerText()).toBe("1.5");
      expect(await page.locator("#address-value").innerText()).toBe(PAYEE);
      expect(await page.getByText("Order 1042 · 2 × espresso beans, 1 kg").count()).toBe(1);
      // The code a wallet scans is exactly the request: 1.5 ETH to the address on chain 31337.
      const request = `ethereum:${PAYEE}@31337?value=1500000000000000000`;
      expect(await scanQr(page)).toBe(request);
      expect((await stateOf(order.checkout_url)).payment_uri).toBe(request);
      expect(await page.locator("a", { hasText: "Open in wallet" }).getAttribute("href")).toBe(request);
      // What a payer fears, said plainly.
      for (const warning of ["Right network:", "Right amount:", "Time left:"]) expect(await page.getByText(warning).count()).toBe(1);
      expect(await page.locator("#countdown").innerText()).toMatch(/^(29:[0-5]\d|30:00) left$/);
      await checkReadable(page);
      await screenshot(page, "waiting-360");
      // From the keyboard: Tab to "Copy address", Enter copies it.
      await page.locator("#address-value").click();
      await page.keyboard.press("Tab");
      expect(await page.evaluate("document.activeElement.textContent")).toBe("Copy address");
      await page.keyboard.press("Enter");
      await until(() => page.evaluate("navigator.clipboard.readText()") as Promise<string>, (t) => t === PAYEE);
      expect(await page.locator("#live").innerText()).toBe("address copied");

      // The page is never reloaded from here on: this mark would be gone.
      await page.evaluate("window.__sameDocument = true");

      await pay(WEI / 2n);
      await waitForHeadline(page, "Payment seen, waiting for confirmations (1 of 3)");
      expect(await page.getByText("Received 0.5 ETH.").count()).toBe(1);
      expect(await page.getByText("That is less than the 1.5 ETH asked: 1 ETH is still due.").count()).toBe(1);
      await mine(1);
      await waitForHeadline(page, "Payment seen, waiting for confirmations (2 of 3)");
      await mine(1);
      await waitForHeadline(page, "Underpaid: 1 ETH still due");
      expect(await page.locator("#amount-value").innerText()).toBe("1");
      expect(await scanQr(page)).toBe(`ethereum:${PAYEE}@31337?value=1000000000000000000`);
      expect(await page.locator("#live").innerText()).toBe("Underpaid: 1 ETH still due");
      await checkReadable(page);
      await screenshot(page, "underpaid-360");

      await pay(WEI);
      await waitForHeadline(page, "Payment seen, waiting for confirmations (1 of 3)");
      expect(await page.locator("svg.qr").count()).toBe(0);
      await mine(2);
      await waitForHeadline(page, "Paid. Thank you!");
      const back = page.locator("a", { hasText: "Back to shop" });
      expect(await back.getAttribute("href")).toBe("https://shop.example/orders/1042");
      expect(await page.evaluate("window.__sameDocument")).toBe(true);
      expect(await page.locator("#refresh").isHidden()).toBe(true);
      await checkReadable(page);
      await screenshot(page, "paid-360");
      // The stream ended with the order.
      await until(async () => td.daemon.deps.checkout.size(), (n) => n === 0);
    },
    SLOW,
  );

  test(
    "reads well on a desktop: the QR code beside the details",
    async () => {
      const order = await createOrder(shop, { order_id: "anvil-2", network: "eth", address: "0x00000000000000000000000000000000c0ffee02", amount: "0.042", description: "Desktop order" });
      const wide = await context.newPage();
      await wide.setViewportSize({ width: 1280, height: 800 });
      await wide.goto(order.checkout_url);
      const qr = await wide.locator("svg.qr").boundingBox();
      const details = await wide.locator("#amount-value").boundingBox();
      expect(qr && details && details.x > qr.x + qr.width).toBe(true);
      expect(await scanQr(wide)).toBe("ethereum:0x00000000000000000000000000000000c0ffee02@31337?value=42000000000000000");
      await checkReadable(wide);
      await screenshot(wide, "waiting-1280");
      await wide.close();
    },
    SLOW,
  );
});
