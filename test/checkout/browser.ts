import { expect } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";

// The checkout pages' end-to-end tests drive Chromium's headless shell through playwright-core, as the
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

/** Screenshots a scan takes before it gives up: a camera's next frames. */
const FRAMES = 3;

/** ZBar's command-line reader (Debian's zbar-tools, which .ci/run installs), reading QR codes only. */
const ZBARIMG = ["zbarimg", "--quiet", "--raw", "--nodbus", "-Sdisable", "-Sqrcode.enable", "-"];

/**
 * The text of the page's QR code as a camera would see it: a screenshot of the code as Chromium
 * draws it, read by ZBar, the decoder of many a scanning app and of another family than the
 * encoder that drew it. @paulmillr/qr's own decoder, used here before, cannot read some valid codes
 * (about 1 random regtest address in 150 at the page's size, even drawn perfectly; ZBar reads
 * them all), which failed CI now and then. A frame that reads as nothing is taken again, up to
 * FRAMES times: a live update can move the page while a screenshot's clip is taken.
 */
export async function scanQr(p: Page): Promise<string> {
  if (!Bun.which("zbarimg")) throw new Error("zbarimg is missing: apt-get install -y zbar-tools (.ci/run does this)");
  let last = "";
  for (let frame = 0; frame < FRAMES; frame++) {
    if (frame > 0) await p.waitForTimeout(250);
    const png = await p.locator("svg.qr").screenshot();
    const zbar = Bun.spawn(ZBARIMG, { stdin: png, stdout: "pipe", stderr: "pipe" });
    const [text, errors, code] = await Promise.all([new Response(zbar.stdout).text(), new Response(zbar.stderr).text(), zbar.exited]);
    // 0: a code was read (one line per code); 4: none found in the picture.
    if (code === 0) return text.replace(/\n$/, "");
    last = `zbarimg exit ${code}: ${errors.trim().slice(0, 300)}`;
  }
  throw new Error(`no QR code read in ${FRAMES} screenshots (${last})`);
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
