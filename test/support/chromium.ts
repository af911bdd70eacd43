import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

// The end-to-end tests' browser: Debian's chromium driven by playwright-core (never Playwright's own
// browser download). One Chromium per test process, launched by the first file that asks and
// shared by the files after it: a launch costs about 1.5 s of CPU and several seconds of wall time
// on this machine, and the suite's --no-isolate workers run the browser files one after another.
// Each file works in browser contexts of its own (cookies, storage and permissions are a context's)
// and closes them when it is done (releaseChromium); the browser itself ends with the process
// (playwright-core kills what it launched on exit, and Chromium ends when its pipe closes).

const CHROMIUM = "/usr/bin/chromium";
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

let shared: Promise<Browser> | undefined;

/** This process's Chromium, launched on first use (and again should it have gone away). */
export async function sharedChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does this)`);
  const current = shared && (await shared.catch(() => null));
  if (current?.isConnected()) return current;
  shared = chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
  return shared;
}

/** Closes every context the file opened in the shared browser (a file's afterAll): the next file starts with none. */
export async function releaseChromium(browser: Browser | undefined): Promise<void> {
  if (!browser) return;
  await Promise.all(browser.contexts().map((c) => c.close().catch(() => {})));
}
