import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { type CabinetUser, signIn } from "./support.ts";

// Bad input gets a clear error and never a 500, in the cabinet too: every form its pages show,
// posted by a signed-in user with each field in turn replaced by values a careless or hostile
// browser sends (the other fields as the page filled them), and every page asked with hostile
// query values. Every answer must be below 500; the daemon stays healthy through it all.

const HOSTILE = ["", " ", "-1", "0", "1.5", "1e999", "NaN", "x".repeat(3000), "\u0001", "\ud83d\ude00", "<script>alert(1)</script>", "../../etc/passwd", "on", "true", "[]", "0x", "10.0.0.0/33"];
const QUERY_KEYS = ["before", "after", "status", "type", "network", "address", "tx_hash", "order_id", "since", "until", "page", "limit"];

type Form = { page: string; action: string; fields: [string, string][] };

/** The forms of a page: each POST form's action and its named fields with the values the page gave them. */
function formsOf(page: string, html: string): Form[] {
  const out: Form[] = [];
  for (const m of html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)) {
    const attrs = m[1];
    if (!/method="post"/i.test(attrs)) continue;
    const action = /action="([^"]*)"/.exec(attrs)?.[1] ?? page;
    const fields: [string, string][] = [];
    for (const f of m[2].matchAll(/<(input|select|textarea)\b([^>]*)>/g)) {
      const name = /name="([^"]+)"/.exec(f[2])?.[1];
      if (!name || name === "csrf") continue;
      fields.push([name, /value="([^"]*)"/.exec(f[2])?.[1] ?? ""]);
    }
    out.push({ page, action: action.replaceAll("&amp;", "&"), fields });
  }
  return out;
}

let td: TestDaemon;
let shop: TestClient;
let user: CabinetUser;

beforeAll(async () => {
  td = await startTestDaemon({ config: { cabinet: { enabled: true }, rate_limit: { per_key_rps: 10_000 } } });
  shop = await td.client({ name: "shop", slots: 3, credits: 100_000 });
  // Something on every page: a watch, a key, a webhook URL, a delivery.
  await shop.request("POST", "/v1/address-watch/addresses", { network_slug: "eth", address: "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed" });
  await shop.request("PUT", "/v1/address-watch/webhook", { url: "http://127.0.0.1:9/hook", enabled: true });
  await shop.request("POST", "/v1/address-watch/webhook/test", { event: "payment", network: "eth" });
  user = await signIn(td, shop.accountId);
});
afterAll(async () => {
  await td.stop();
});

const PAGES = ["/cabinet/", "/cabinet/keys", "/cabinet/addresses", "/cabinet/webhook", "/cabinet/deliveries", "/cabinet/events", "/cabinet/payments"];

describe("hostile input to the cabinet", () => {
  test("every form field of every page, replaced by hostile values, is answered below 500", async () => {
    const forms: Form[] = [];
    for (const page of PAGES) {
      const res = await user.get(page);
      expect([page, res.status]).toEqual([page, 200]);
      forms.push(...formsOf(page, await res.text()));
    }
    // The pages show forms for keys, addresses, the webhook, its test and its recovery at least.
    expect(forms.length).toBeGreaterThanOrEqual(6);
    const broken: string[] = [];
    let sent = 0;
    for (const form of forms) {
      // Forms that end the session or revoke the only key take no field: they are left out.
      if (/logout|revoke/.test(form.action)) continue;
      // A group of checkboxes sharing a name is one field, its values a list.
      const filled = new Map<string, string[]>();
      for (const [k, v] of form.fields) filled.set(k, [...(filled.get(k) ?? []), v]);
      for (const name of filled.keys()) {
        for (const value of HOSTILE) {
          const fields = Object.fromEntries([...filled].map(([k, vs]) => [k, k === name ? value : vs]));
          const res = await user.post(form.action, fields);
          sent++;
          if (res.status >= 500) broken.push(`${form.action} ${name}=${JSON.stringify(value).slice(0, 40)} → ${res.status}`);
          await res.body?.cancel();
        }
      }
    }
    expect(sent).toBeGreaterThan(100);
    expect(broken).toEqual([]);
  });

  test("every page asked with hostile query values is answered below 500", async () => {
    const broken: string[] = [];
    for (const page of [...PAGES, "/cabinet/deliveries/dlv_nope", "/cabinet/events/evt_nope", "/cabinet/payments/pay_nope"]) {
      for (const key of QUERY_KEYS) {
        for (const value of HOSTILE) {
          const res = await user.get(`${page}?${key}=${encodeURIComponent(value)}`);
          if (res.status >= 500) broken.push(`${page}?${key}=${JSON.stringify(value).slice(0, 40)} → ${res.status}`);
          await res.body?.cancel();
        }
      }
    }
    expect(broken).toEqual([]);
  });

  test("the daemon is healthy afterwards and the session still works", async () => {
    const health = await fetch(`${td.url}/healthz`);
    expect([health.status, await health.json()]).toEqual([200, { ok: true }]);
    expect((await user.get("/cabinet/")).status).toBe(200);
  });
});
