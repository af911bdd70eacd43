import { expect } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { readQrPixels } from "./support.ts";

// The checkout pages' end-to-end tests drive Debian's chromium through playwright-core, as the
// cabinet's do (test/support/chromium.ts). Screenshots are taken when $CABINET_SCREENSHOTS names a
// folder; they assert nothing.

const SHOTS = process.env.CABINET_SCREENSHOTS;

/** Chromium on a shared 2-core machine: a page step can take seconds. */
export const SLOW = 120_000;

/** A screenshot of the whole page (at most 1600 px of it) as `checkout-<name>.png`, when asked for. */
export async function screenshot(p: Page, name: string): Promise<void> {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  const width = p.viewportSize()?.width ?? 360;
  const height = Math.min(1600, (await p.evaluate("document.documentElement.scrollHeight")) as number);
  await p.screenshot({ path: join(SHOTS, `checkout-${name}.png`), fullPage: true, clip: { x: 0, y: 0, width, height } });
}

/** The status heading, which the live updates change. */
export const headline = (p: Page) => p.locator("#status h2").innerText();

/** Waits until the status heading says `text` (a string or a pattern), without reloading. */
export async function waitForHeadline(p: Page, text: string | RegExp, timeout = 30_000): Promise<void> {
  await p.waitForFunction(
    ([source, flags]) => {
      const h = (globalThis as any).document.querySelector("#status h2");
      return h !== null && new RegExp(source, flags).test(h.textContent);
    },
    typeof text === "string" ? [text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), ""] : [text.source, text.flags],
    { timeout, polling: 100 },
  );
}

/**
 * The text of the page's QR code as a camera would see it: a screenshot of the code as Chromium
 * draws it, turned into pixels by a blank page of the same browser (no policy there), read by
 * @paulmillr/qr's decoder.
 */
export async function scanQr(p: Page): Promise<string> {
  const png = await p.locator("svg.qr").screenshot();
  const blank = await p.context().newPage();
  try {
    const image = (await blank.evaluate(async (base64: string) => {
      const g = globalThis as any;
      const bitmap = await g.createImageBitmap(new g.Blob([g.Uint8Array.from(g.atob(base64), (c: string) => c.charCodeAt(0))], { type: "image/png" }));
      const canvas = new g.OffscreenCanvas(bitmap.width, bitmap.height);
      const ctx = canvas.getContext("2d");
      ctx.drawImage(bitmap, 0, 0);
      const data = ctx.getImageData(0, 0, bitmap.width, bitmap.height);
      return { width: data.width, height: data.height, data: Array.from(data.data) };
    }, png.toString("base64"))) as { width: number; height: number; data: number[] };
    return readQrPixels({ width: image.width, height: image.height, data: Uint8Array.from(image.data) });
  } finally {
    await blank.close();
  }
}

/** Every visible control has a name a screen reader says, and nothing is wider than the viewport. */
export async function checkReadable(p: Page): Promise<void> {
  const unnamed = await p.evaluate(`[...document.querySelectorAll("a,button,input,select,textarea,svg[role=img],progress")]
    .filter((e) => e.offsetParent !== null || e.tagName === "svg")
    .filter((e) => !(e.getAttribute("aria-label") || (e.labels && e.labels.length > 0) || e.textContent.trim()))
    .map((e) => e.outerHTML.slice(0, 120))`);
  expect(unnamed).toEqual([]);
  const width = p.viewportSize()?.width ?? 360;
  expect(await p.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(width);
}

/** The JSON state of a page, read the way a shop's script polls it. */
export async function stateOf(checkoutUrl: string): Promise<Record<string, any>> {
  return (await (await fetch(`${checkoutUrl}.json`)).json()) as Record<string, any>;
}
