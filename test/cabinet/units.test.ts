import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAccount } from "../../src/accounts/accounts.ts";
import { niceCeiling, usageChart } from "../../src/cabinet/chart.ts";
import { html, raw } from "../../src/lib/html.ts";
import { parseAllowIps } from "../../src/cabinet/pages/keys.ts";
import { webhookBodyFromForm } from "../../src/cabinet/pages/webhook.ts";
import { sessionToken } from "../../src/cabinet/cookie.ts";
import {
  createSignInLink,
  csrfMatches,
  csrfTokenFor,
  findSession,
  parseTtl,
  peekSignInLink,
  redeemSignInLink,
  SESSION_TTL_MS,
  signInUrl,
} from "../../src/cabinet/sessions.ts";
import { type Context, openContext } from "../../src/daemon.ts";
import { manualClock } from "../support/clock.ts";
import { testConfig } from "../support/harness.ts";

describe("html", () => {
  test("escapes every interpolated value, joins lists, drops null/undefined/false, keeps nested html", () => {
    const evil = `<script>alert("x")</script>&'`;
    expect(html`<p title="${evil}">${evil}</p>`.text).toBe(
      "<p title=\"&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;\">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;</p>",
    );
    expect(html`<ul>${["a<", html`<li>b</li>`]}</ul>${null}${undefined}${false}${0}`.text).toBe("<ul>a&lt;<li>b</li></ul>0");
    expect(html`${raw("<br>")}`.text).toBe("<br>");
  });
});

describe("usage chart", () => {
  test.each([
    [0, 1],
    [1, 1],
    [3, 5],
    [7, 10],
    [120, 200],
    [5000, 5000],
  ])("the axis of a %p-credit maximum ends at %p", (n, top) => expect(niceCeiling(n)).toBe(top));

  test("draws one titled bar per day, scaled to the axis, with a text summary", () => {
    const series = [
      { date: "2026-11-20", credits: 0, deliveries: 0, events: 0, rpc_calls: 0 },
      { date: "2026-11-21", credits: 50, deliveries: 1, events: 2, rpc_calls: 0 },
      { date: "2026-11-22", credits: 100, deliveries: 2, events: 2, rpc_calls: 0 },
    ];
    const svg = usageChart(series).text;
    expect(svg.match(/<rect /g)).toHaveLength(3);
    expect(svg).toContain("<title>2026-11-21: 50 credits, 1 deliveries, 2 events</title>");
    expect(svg).toContain('aria-label="Credits spent per day from 2026-11-20 to 2026-11-22: 150 in total, at most 100 on one day."');
    // 100 credits reach the top line (y = 8) of a 150-unit-high plot; 50 reach half way.
    expect(svg).toMatch(/<rect x="[\d.]+" y="8.0" width="[\d.]+" height="150.0" fill="#0b5cad"><title>2026-11-22/);
    expect(svg).toMatch(/<rect x="[\d.]+" y="83.0" width="[\d.]+" height="75.0"/);
  });
});

describe("forms", () => {
  test("the webhook form becomes a full PUT body: unticked kinds off, ticked networks listed, empty URL null", () => {
    const form = new URLSearchParams([
      ["url", " https://example.com/h "],
      ["enabled", "true"],
      ["payment", "true"],
      ["block_networks", "eth"],
      ["block_networks", "btc"],
    ]);
    expect(webhookBodyFromForm(form)).toEqual({
      url: "https://example.com/h",
      enabled: true,
      events: { payment: true, payment_networks: [], payout: false, payout_networks: [], block: false, block_networks: ["eth", "btc"] },
    });
    expect(webhookBodyFromForm(new URLSearchParams({ url: "" }))).toMatchObject({ url: null, enabled: false });
  });

  test("min_confirmations is sent only when the form has it, as a number when it is one", () => {
    expect(webhookBodyFromForm(new URLSearchParams({ min_confirmations: "12" })).events).toMatchObject({ min_confirmations: 12 });
    expect(webhookBodyFromForm(new URLSearchParams({ min_confirmations: "x" })).events).toMatchObject({ min_confirmations: "x" });
    expect(webhookBodyFromForm(new URLSearchParams()).events).not.toHaveProperty("min_confirmations");
  });

  test("allowlists split on lines, commas and spaces", () => {
    expect(parseAllowIps("10.0.0.0/8\n 192.0.2.1, 2001:db8::1  ")).toEqual(["10.0.0.0/8", "192.0.2.1", "2001:db8::1"]);
    expect(parseAllowIps("")).toEqual([]);
    expect(parseAllowIps(null)).toEqual([]);
  });

  test("the session cookie is read from among others", () => {
    const req = (cookie: string) => new Request("http://x/cabinet/", { headers: { cookie } });
    expect(sessionToken(req("a=1; chainwatch_session=abc; b=2"))).toBe("abc");
    expect(sessionToken(req("chainwatch_session="))).toBeNull();
    expect(sessionToken(new Request("http://x/"))).toBeNull();
  });
});

describe("link TTLs and URLs", () => {
  test.each([
    ["15m", 900_000],
    ["30s", 30_000],
    ["2h", 7_200_000],
    ["7d", 604_800_000],
    ["90", 90_000],
  ])("%p lasts %p ms", (text, ms) => expect(parseTtl(text)).toBe(ms));

  test.each(["", "0s", "8d", "15 minutes", "-1m", "1.5h"])("%p is refused", (text) => expect(parseTtl(text)).toBeNull());

  test("links use public_url when set, else the listening address", () => {
    const cfg = (host: string, public_url = "") => ({ server: { host, port: 8787 }, cabinet: { public_url } });
    expect(signInUrl(cfg("127.0.0.1"), "t")).toBe("http://127.0.0.1:8787/cabinet/login?token=t");
    expect(signInUrl(cfg("0.0.0.0"), "t")).toBe("http://localhost:8787/cabinet/login?token=t");
    expect(signInUrl(cfg("::1"), "t")).toBe("http://[::1]:8787/cabinet/login?token=t");
    expect(signInUrl(cfg("0.0.0.0", "https://watch.example.com/"), "t")).toBe("https://watch.example.com/cabinet/login?token=t");
  });
});

describe("sessions", () => {
  let dir: string;
  let ctx: Context;
  const clock = manualClock();
  let accountId: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "chainwatch-cabinet-"));
    ctx = await openContext(testConfig(dir), { clock, env: {} });
    const a = await createAccount(ctx, { name: "shop" });
    if (!a.ok) throw new Error(a.error);
    accountId = a.account.id;
  });
  afterAll(async () => {
    await ctx.db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  test("a link expires at its TTL unused", async () => {
    const { token } = await createSignInLink(ctx, accountId, 60_000);
    clock.advance(59_999);
    expect(await peekSignInLink(ctx, token)).toEqual({ accountId, accountName: "shop", disabled: false });
    clock.advance(1);
    expect(await peekSignInLink(ctx, token)).toBeNull();
    expect(await redeemSignInLink(ctx, token)).toEqual({ ok: false, code: "SIGN_IN_LINK_INVALID" });
  });

  test("two redemptions of one link at once give one session", async () => {
    const { token } = await createSignInLink(ctx, accountId, 60_000);
    const results = await Promise.all([redeemSignInLink(ctx, token), redeemSignInLink(ctx, token)]);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
  });

  test("a session lasts seven days", async () => {
    const { token } = await createSignInLink(ctx, accountId, 60_000);
    const r = await redeemSignInLink(ctx, token);
    if (!r.ok) throw new Error("not redeemed");
    clock.advance(SESSION_TTL_MS - 1);
    expect(await findSession(ctx, r.sessionToken)).toEqual({ accountId, accountName: "shop", disabled: false });
    clock.advance(1);
    expect(await findSession(ctx, r.sessionToken)).toBeNull();
  });

  test("CSRF tokens are per session and compared exactly", () => {
    const a = csrfTokenFor("session-a");
    expect(csrfTokenFor("session-a")).toBe(a);
    expect(csrfTokenFor("session-b")).not.toBe(a);
    expect(csrfMatches("session-a", a)).toBe(true);
    expect(csrfMatches("session-a", csrfTokenFor("session-b"))).toBe(false);
    expect(csrfMatches("session-a", a.slice(1))).toBe(false);
    expect(csrfMatches("session-a", "")).toBe(false);
    expect(csrfMatches("session-a", null)).toBe(false);
  });
});
