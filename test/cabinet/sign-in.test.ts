import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createSignInThrottle, signInThrottled, throttleKey } from "../../src/cabinet/sign-in-throttle.ts";
import { manualClock } from "../support/clock.ts";
import { startTestDaemon, type TestDaemon } from "../support/harness.ts";
import { alertOf, signIn, signInLink } from "./support.ts";

// Signing in with a one-time link, against what another site or a guesser could do with it:
// login CSRF (docs/cabinet.md) and throttled failures, on a real daemon.
let td: TestDaemon;

beforeAll(async () => {
  td = await startTestDaemon();
});
afterAll(async () => {
  await td.stop();
});

const tokenOf = (url: string) => new URL(url).searchParams.get("token") as string;

/** Posts the sign-in form as a browser would from the page: `headers` adds its Sec-Fetch-Site, Origin or Cookie. */
function postSignIn(d: TestDaemon, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${d.url}/cabinet/login`, { method: "POST", body: new URLSearchParams(fields), headers, redirect: "manual" });
}

const buttonsOf = (page: string) => [...page.matchAll(/<button[^>]*>([^<]*)<\/button>/g)].map((m) => m[1]);

describe("the sign-in page", () => {
  test("waits for a press of its one button, which names the account; nothing on it submits by itself", async () => {
    const c = await td.client({ name: "pressme" });
    const res = await fetch(await signInLink(td, c.accountId));
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page.match(/<form /g)).toHaveLength(1);
    expect(buttonsOf(page)).toEqual(["Sign in as pressme"]);
    expect(page).not.toContain("autosubmit");
    // The page's one script (admitted by hash, so no other can run) submits and clicks nothing.
    const scripts = [...page.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
    expect(scripts).toHaveLength(1);
    expect(scripts[0]).not.toMatch(/requestSubmit|\.submit\(|\.click\(/);
    expect(page).toContain("If you did not ask for a sign-in link to account pressme, close this page");
  });
});

describe("where a sign-in post may come from", () => {
  test.each([
    ["another site (Sec-Fetch-Site: cross-site)", { "sec-fetch-site": "cross-site" }],
    ["a sibling site (Sec-Fetch-Site: same-site)", { "sec-fetch-site": "same-site" }],
    ["a browser without Sec-Fetch-Site on another origin", { origin: "https://attacker.example" }],
    ["a sandboxed page (Origin: null)", { origin: "null" }],
  ])("from %s: 403, no cookie, and the link still works", async (_from, headers) => {
    const c = await td.client();
    const token = tokenOf(await signInLink(td, c.accountId));
    const res = await postSignIn(td, { token }, headers);
    expect([res.status, res.headers.get("set-cookie")]).toEqual([403, null]);
    expect(alertOf(await res.text())).toBe("A sign-in must be confirmed on the sign-in page of this cabinet.");
    expect((await fetch(`${td.url}/cabinet/login?token=${token}`)).status).toBe(200);
  });

  test.each([
    ["Sec-Fetch-Site: same-origin", () => ({ "sec-fetch-site": "same-origin" })],
    ["an Origin of this site", () => ({ origin: td.url })],
    ["neither (not a browser)", () => ({})],
  ])("from the page itself (%s) it signs in", async (_how, headers) => {
    const c = await td.client();
    const res = await postSignIn(td, { token: tokenOf(await signInLink(td, c.accountId)) }, headers());
    expect([res.status, res.headers.get("location")]).toEqual([303, "/cabinet/"]);
  });
});

describe("a browser already signed in", () => {
  test("to another account: the link's page asks to switch, and its button says what it does", async () => {
    const a = await td.client({ name: "alice" });
    const b = await td.client({ name: "bob" });
    const bob = await signIn(td, b.accountId);
    const res = await fetch(await signInLink(td, a.accountId), { headers: { cookie: bob.cookie } });
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toContain("<h1>Switch account?</h1>");
    expect(page).toContain("You are signed in as <strong>bob</strong>. Continue as <strong>alice</strong>?");
    expect(buttonsOf(page)).toEqual(["Sign out of bob and continue as alice"]);
    expect(page).toContain(`<input type="hidden" name="csrf" value="${bob.csrf}">`);
  });

  test("to another account: a post that did not confirm the switch gets the question (409), nothing changes", async () => {
    const a = await td.client({ name: "carol" });
    const b = await td.client({ name: "dave" });
    const dave = await signIn(td, b.accountId);
    const token = tokenOf(await signInLink(td, a.accountId));
    // What a page that sent dave's browser to carol's link, and got it posted, would do.
    for (const csrf of [undefined, "forged"]) {
      const res = await postSignIn(td, csrf ? { token, csrf } : { token }, { cookie: dave.cookie, "sec-fetch-site": "same-origin" });
      expect([res.status, res.headers.get("set-cookie")]).toEqual([409, null]);
      const page = await res.text();
      expect(page).toContain("You are signed in as <strong>dave</strong>. Continue as <strong>carol</strong>?");
      expect(buttonsOf(page)).toEqual(["Sign out of dave and continue as carol"]);
    }
    expect(await (await dave.get("/cabinet/")).text()).toContain("Account <b>dave</b>");
    expect((await fetch(`${td.url}/cabinet/login?token=${token}`)).status).toBe(200);
  });

  test("to another account: the confirmed switch signs in to the link's account and ends the other session", async () => {
    const a = await td.client({ name: "erin" });
    const b = await td.client({ name: "frank" });
    const frank = await signIn(td, b.accountId);
    const token = tokenOf(await signInLink(td, a.accountId));
    const res = await postSignIn(td, { token, csrf: frank.csrf }, { cookie: frank.cookie, "sec-fetch-site": "same-origin" });
    expect([res.status, res.headers.get("location")]).toEqual([303, "/cabinet/"]);
    const cookie = (res.headers.get("set-cookie") as string).split(";")[0];
    expect(cookie).not.toBe(frank.cookie);
    expect(await (await fetch(`${td.url}/cabinet/`, { headers: { cookie } })).text()).toContain("Account <b>erin</b>");
    expect((await frank.get("/cabinet/")).status).toBe(401);
  });

  test("to the same account: a plain sign-in, no question; the old session ends", async () => {
    const a = await td.client({ name: "grace" });
    const before = await signIn(td, a.accountId);
    const url = await signInLink(td, a.accountId);
    const page = await (await fetch(url, { headers: { cookie: before.cookie } })).text();
    expect(buttonsOf(page)).toEqual(["Sign in as grace"]);
    const res = await postSignIn(td, { token: tokenOf(url) }, { cookie: before.cookie });
    expect(res.status).toBe(303);
    expect((await before.get("/cabinet/")).status).toBe(401);
  });
});

describe("failed sign-ins are throttled per client address", () => {
  const clock = manualClock();
  let d: TestDaemon;
  beforeAll(async () => {
    // Behind a trusted proxy, so each request can say which address it comes from.
    d = await startTestDaemon({ clock, config: { server: { trust_proxy: true } } });
  });
  afterAll(async () => {
    await d.stop();
  });
  const from = (ip: string, extra: Record<string, string> = {}) => ({ "x-forwarded-for": ip, ...extra });
  const open = (ip: string, token: string) => fetch(`${d.url}/cabinet/login?token=${encodeURIComponent(token)}`, { headers: from(ip) });

  test("10 failures a minute from one address, then 429 with Retry-After for everything it tries; other addresses go on", async () => {
    const c = await d.client({ name: "victim" });
    const guesser = "203.0.113.7";
    for (let i = 0; i < 5; i++) {
      expect((await open(guesser, `guess-${i}`)).status).toBe(410);
      expect((await postSignIn(d, { token: `guess-post-${i}` }, from(guesser))).status).toBe(410);
    }
    // Now even a link that works is not looked at from there: a guesser learns nothing.
    const url = await signInLink(d, c.accountId);
    for (const res of [await open(guesser, tokenOf(url)), await postSignIn(d, { token: tokenOf(url) }, from(guesser))]) {
      expect([res.status, res.headers.get("retry-after"), res.headers.get("set-cookie")]).toEqual([429, "60", null]);
      expect(alertOf(await res.text())).toBe("Too many sign-in links that did not work came from your address. Try again in 60 seconds.");
    }
    // Another address opens and redeems the same link.
    expect((await open("198.51.100.20", tokenOf(url))).status).toBe(200);
    expect((await postSignIn(d, { token: tokenOf(url) }, from("198.51.100.20"))).status).toBe(303);

    // The wait counts down from the oldest failure; once it has passed, a valid link works again.
    clock.advance(30_000);
    const later = await open(guesser, "guess-again");
    expect([later.status, later.headers.get("retry-after")]).toEqual([429, "30"]);
    clock.advance(30_000);
    const fresh = await signInLink(d, c.accountId);
    expect((await open(guesser, tokenOf(fresh))).status).toBe(200);
    expect((await postSignIn(d, { token: tokenOf(fresh) }, from(guesser))).status).toBe(303);
  });

  test("an IPv6 client counts per /64: stepping through its own addresses gains nothing", async () => {
    for (let i = 0; i < 10; i++) expect((await open(`2001:db8:7::${(i + 1).toString(16)}`, `v6-guess-${i}`)).status).toBe(410);
    expect((await open("2001:db8:7::ffff", "v6-guess-more")).status).toBe(429);
    expect((await open("2001:db8:7:1::1", "v6-elsewhere")).status).toBe(410);
  });

  test("a link's page without a token is no attempt", async () => {
    for (let i = 0; i < 12; i++) expect((await fetch(`${d.url}/cabinet/login`, { headers: from("192.0.2.44") })).status).toBe(410);
    expect((await open("192.0.2.44", "first-real-guess")).status).toBe(410);
  });
});

describe("the throttle", () => {
  test("a sliding minute: the 11th failure waits until the oldest is a minute old, then one more may fail", () => {
    const clock = manualClock(0);
    const t = createSignInThrottle({ clock });
    for (let i = 0; i < 10; i++) {
      expect(t.waitMs("a")).toBe(0);
      t.failed("a");
      clock.advance(1000);
    }
    expect([t.waitMs("a"), t.waitMs("b")]).toEqual([50_000, 0]);
    clock.set(60_000);
    expect(t.waitMs("a")).toBe(0);
    t.failed("a");
    expect(t.waitMs("a")).toBe(1000);
  });

  test("a wall clock stepped back or forward an hour neither forgives nor prolongs a wait", () => {
    const clock = manualClock();
    const t = createSignInThrottle({ clock });
    for (let i = 0; i < 10; i++) t.failed("a");
    clock.step(-3_600_000);
    expect(t.waitMs("a")).toBe(60_000);
    clock.step(7_200_000);
    expect(t.waitMs("a")).toBe(60_000);
    clock.advance(59_999);
    expect(t.waitMs("a")).toBe(1);
    clock.advance(1);
    expect(t.waitMs("a")).toBe(0);
  });

  test.each([
    [1, 1, "Try again in 1 second."],
    [1000, 1, "Try again in 1 second."],
    [1001, 2, "Try again in 2 seconds."],
    [60_000, 60, "Try again in 60 seconds."],
  ])("a client waiting %d ms is refused with SIGN_IN_THROTTLED, Retry-After %d: %s", (waitMs, seconds, tail) => {
    expect(signInThrottled(waitMs)).toEqual({
      ok: false,
      code: "SIGN_IN_THROTTLED",
      error: `Too many sign-in links that did not work came from your address. ${tail}`,
      retryAfterSeconds: seconds,
    });
  });

  test("remembers at most maxClients clients, forgetting the one remembered longest", () => {
    const t = createSignInThrottle({ clock: manualClock(0), limit: 1, maxClients: 2 });
    for (const client of ["a", "b", "c"]) t.failed(client);
    expect(["a", "b", "c"].map((client) => t.waitMs(client) > 0)).toEqual([false, true, true]);
  });

  test.each([
    ["203.0.113.7", "v4:3405803783"],
    ["::ffff:203.0.113.7", "v4:3405803783"],
    ["2001:db8::1", "v6:2306139568115548160/64"],
    ["2001:db8::ffff:1", "v6:2306139568115548160/64"],
    ["2001:db8:0:1::1", "v6:2306139568115548161/64"],
    ["not an address", "text:not an address"],
    [null, "unknown"],
  ])("%p counts as %p", (ip, key) => {
    expect(throttleKey(ip)).toBe(key);
  });
});
