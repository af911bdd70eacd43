import { existsSync, readdirSync, readFileSync, rmdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium } from "playwright-core";

// The end-to-end tests' browser: Debian's chromium-headless-shell driven by playwright-core (never
// Playwright's own browser download). The headless shell is Chromium's engine without the browser
// around it, what Playwright itself runs for headless tests: the full `chromium --headless` kept a
// core a fifth busy while a page sat idle (1.1 s of CPU in 5 s, against 0.07) and cost half as much
// again per navigation. One browser per test process, launched by the first file that asks and
// shared by the files after it: the suite's --no-isolate workers run the browser files one after
// another.
// Each file works in browser contexts of its own (cookies, storage and permissions are a context's)
// and closes them when it is done (releaseChromium); the browser itself ends with the process
// (playwright-core kills what it launched on exit, and Chromium ends when its pipe closes); the
// folders such ends leave behind are removed by the next launch (sweepStaleFolders).

const CHROMIUM = "/usr/bin/chromium-headless-shell";
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

let shared: Promise<Browser> | undefined;

/** This process's Chromium, launched on first use (and again should it have gone away). */
export async function sharedChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium-headless-shell (.ci/run does this)`);
  const current = shared && (await shared.catch(() => null));
  if (current?.isConnected()) return current;
  sweepStaleFolders();
  shared = chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
  return shared;
}

const PROFILE_PREFIX = "playwright_chromiumdev_profile-";
/** Each launch's (empty, unless the browser downloaded something) folder for artifacts, left the same way. */
const ARTIFACTS_PREFIX = "playwright-artifacts-";

/**
 * Removes the temporary folders of Chromiums that are gone. playwright-core deletes a launch's
 * profile folder when the browser is closed, but a test process ends without closing it (the
 * browser is shared to the end, and a worker gets no exit event to await a close in), so every
 * run left one folder of about 5 MB per test process in the temporary directory (and an empty
 * folder for artifacts). A profile is left alone while a running Chromium names it, and for a
 * minute after it was made (a launch in another worker between making it and starting its browser).
 */
function sweepStaleFolders(): void {
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
    const dir = join(tmp, name);
    try {
      if (name.startsWith(PROFILE_PREFIX)) {
        if (inUse.has(dir) || Date.now() - statSync(dir).mtimeMs < 60_000) continue;
        rmSync(dir, { recursive: true, force: true });
      } else if (name.startsWith(ARTIFACTS_PREFIX)) {
        // No process names it: only an empty one is removed (rmdir refuses any other), once it is
        // older than any test process lives.
        if (Date.now() - statSync(dir).mtimeMs >= 10 * 60_000) rmdirSync(dir);
      }
    } catch {
      // Removed by its own process meanwhile, or not empty.
    }
  }
}

/** Closes every context the file opened in the shared browser (a file's afterAll): the next file starts with none. */
export async function releaseChromium(browser: Browser | undefined): Promise<void> {
  if (!browser) return;
  await Promise.all(browser.contexts().map((c) => c.close().catch(() => {})));
}
