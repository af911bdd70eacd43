import { existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium } from "playwright-core";

// The end-to-end tests' browser: Debian's chromium driven by playwright-core (never Playwright's own
// browser download). One Chromium per test process, launched by the first file that asks and
// shared by the files after it: a launch costs about 1.5 s of CPU and several seconds of wall time
// on this machine, and the suite's --no-isolate workers run the browser files one after another.
// Each file works in browser contexts of its own (cookies, storage and permissions are a context's)
// and closes them when it is done (releaseChromium); the browser itself ends with the process
// (playwright-core kills what it launched on exit, and Chromium ends when its pipe closes); the
// profile folders such ends leave behind are removed by the next launch (sweepStaleProfiles).

const CHROMIUM = "/usr/bin/chromium";
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

let shared: Promise<Browser> | undefined;

/** This process's Chromium, launched on first use (and again should it have gone away). */
export async function sharedChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does this)`);
  const current = shared && (await shared.catch(() => null));
  if (current?.isConnected()) return current;
  sweepStaleProfiles();
  shared = chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
  return shared;
}

const PROFILE_PREFIX = "playwright_chromiumdev_profile-";

/**
 * Removes the temporary profiles of Chromiums that are gone. playwright-core deletes a launch's
 * profile folder when the browser is closed, but a test process ends without closing it (the
 * browser is shared to the end, and a worker gets no exit event to await a close in), so every
 * run left one folder of about 5 MB per test process in the temporary directory. A folder is
 * left alone while a running Chromium names it, and for a minute after it was made (a launch in
 * another worker between making it and starting its browser).
 */
function sweepStaleProfiles(): void {
  const inUse = new Set<string>();
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const match = /--user-data-dir=([^\0]+)/.exec(readFileSync(`/proc/${pid}/cmdline`, "utf8"));
      if (match) inUse.add(match[1]);
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  const tmp = tmpdir();
  for (const name of readdirSync(tmp)) {
    if (!name.startsWith(PROFILE_PREFIX)) continue;
    const dir = join(tmp, name);
    try {
      if (inUse.has(dir) || Date.now() - statSync(dir).mtimeMs < 60_000) continue;
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // Removed by its own process meanwhile.
    }
  }
}

/** Closes every context the file opened in the shared browser (a file's afterAll): the next file starts with none. */
export async function releaseChromium(browser: Browser | undefined): Promise<void> {
  if (!browser) return;
  await Promise.all(browser.contexts().map((c) => c.close().catch(() => {})));
}
