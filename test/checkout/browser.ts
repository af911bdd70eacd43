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
 * Sizes, relative to the screenshot, at which the code is read: first as drawn, then as a camera
 * further off or nearer would see it. The decoder misreads some codes whose modules Chromium draws
 * 6 and 7 pixels wide by turns (1 scan in ~40, depending on the address); a phone tries the next
 * frame, and this tries the next size.
 */
const READ_SCALES = [1, 0.5, 0.75, 1.5];

/** Screenshots a scan takes before it gives up: a camera's next frames. */
const FRAMES = 3;

/**
 * The text of the page's QR code as a camera would see it: a screenshot of the code as Chromium
 * draws it, turned into pixels by a blank page of the same browser (no policy there), read by
 * @paulmillr/qr's decoder. The pixels come back as one base64 string: as an array of numbers the
 * same 330 KB took Playwright ~2 s of CPU to carry. A frame no size reads is taken again, up to
 * FRAMES times: a live update can move the page while a screenshot's clip is taken (seen once in
 * CI: a code found but unreadable at every size, where 150 codes drawn alone at 360 px all read).
 */
export async function scanQr(p: Page): Promise<string> {
  const blank = await p.context().newPage();
  try {
    let firstError: unknown;
    for (let frame = 0; frame < FRAMES; frame++) {
      if (frame > 0) await p.waitForTimeout(250);
      const png = (await p.locator("svg.qr").screenshot()).toString("base64");
      for (const scale of READ_SCALES) {
        const image = (await blank.evaluate(
          async ([base64, scale]: [string, number]) => {
            const g = globalThis as any;
            const bitmap = await g.createImageBitmap(new g.Blob([g.Uint8Array.from(g.atob(base64), (c: string) => c.charCodeAt(0))], { type: "image/png" }));
            const [width, height] = [Math.round(bitmap.width * scale), Math.round(bitmap.height * scale)];
            const ctx = new g.OffscreenCanvas(width, height).getContext("2d");
            ctx.drawImage(bitmap, 0, 0, width, height);
            const data = ctx.getImageData(0, 0, width, height).data;
            let bytes = "";
            for (let i = 0; i < data.length; i += 0x8000) bytes += String.fromCharCode(...data.subarray(i, i + 0x8000));
            return { width, height, data: g.btoa(bytes) };
          },
          [png, scale] as [string, number],
        )) as { width: number; height: number; data: string };
        try {
          return readQrPixels({ width: image.width, height: image.height, data: Buffer.from(image.data, "base64") });
        } catch (e) {
          firstError ??= e;
        }
      }
    }
    throw firstError;
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
