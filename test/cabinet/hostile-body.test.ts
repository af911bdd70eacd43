import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { rawExchange } from "../support/raw-http.ts";
import { alertOf, type CabinetUser, signIn, signInLink } from "./support.ts";

// Bodies sent to do harm to the cabinet (docs/cabinet.md): nothing of a form is read before the
// session (for the sign-in: the cross-site check and the throttle) lets the request through, and
// no body is ever parsed as JSON. On a real daemon behind a trusted proxy, so each request can say
// which address it comes from (the sign-in throttle counts per address).

const MIB = 1_048_576;
const HOSTILE = "[".repeat(MIB / 2) + "]".repeat(MIB / 2);
const NOT_A_FORM = "Content-Type must be application/x-www-form-urlencoded.";

let td: TestDaemon;
let shop: TestClient;
let user: CabinetUser;

beforeAll(async () => {
  td = await startTestDaemon({ config: { cabinet: { enabled: true }, server: { trust_proxy: true } } });
  shop = await td.client({ name: "shop", slots: 3 });
  user = await signIn(td, shop.accountId);
});
afterAll(async () => {
  await td.stop();
});

const tokenOf = (url: string) => new URL(url).searchParams.get("token") as string;

/** Writes a POST of `path` whose body of `length` bytes stops after its first 64 KiB, and reads the answer. */
function postCutShort(path: string, headers: Record<string, string>, contentType = "application/x-www-form-urlencoded") {
  const head = [`POST ${path} HTTP/1.1`, "Host: 127.0.0.1", `Content-Type: ${contentType}`, `Content-Length: ${MIB}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  // The rest of the body never comes: a server that waits for it never answers.
  return rawExchange(td.url, `${head.join("\r\n")}\r\n\r\n${"a=".padEnd(64 * 1024, "x")}`);
}

describe("a form post without a session", () => {
  test("is answered 401 before its body is sent whole: none of it is read", async () => {
    const answer = await postCutShort("/cabinet/addresses", { "x-forwarded-for": "192.0.2.1" });
    expect(answer.status).toBe(401);
    expect(answer.body).toContain("<h1>Not signed in</h1>");
  });

  test("with a 1 MB [[[…]]] JSON body is answered 401, never 415 or 400", async () => {
    const res = await fetch(`${td.url}/cabinet/addresses`, { method: "POST", body: HOSTILE, headers: { "content-type": "application/json", accept: "application/json" } });
    expect({ status: res.status, body: await res.json() }).toEqual({ status: 401, body: { error: "Not signed in." } });
  });
});

describe("a signed-in user's form posted as anything but a urlencoded form", () => {
  const postAs = (contentType: string, body: string, accept?: string) =>
    fetch(`${td.url}/cabinet/addresses`, {
      method: "POST",
      body,
      headers: { cookie: user.cookie, "x-csrf-token": user.csrf, "content-type": contentType, ...(accept ? { accept } : {}) },
    });

  test("a 1 MB [[[…]]] JSON body is refused 415 (JSON when asked for), and nothing is added", async () => {
    const res = await postAs("application/json", HOSTILE, "application/json");
    expect({ status: res.status, body: await res.json() }).toEqual({ status: 415, body: { error: NOT_A_FORM } });
    // A JSON body that would be a valid form's fields is no form either.
    const fields = JSON.stringify({ network_slug: "eth", address: "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed", csrf: user.csrf });
    const page = await postAs("application/json", fields);
    expect(page.status).toBe(415);
    expect(alertOf(await page.text())).toBe(NOT_A_FORM);
    expect(await (await shop.request("GET", "/v1/address-watch/addresses")).json()).toEqual({ addresses: [] });
  });

  test("multipart and text bodies are refused 415 too", async () => {
    for (const type of ["multipart/form-data; boundary=x", "text/plain"]) {
      const res = await postAs(type, "--x\r\n", "application/json");
      expect([type, res.status, await res.json()]).toEqual([type, 415, { error: NOT_A_FORM }]);
    }
  });

  test("a urlencoded form, in any case and with a charset, is read", async () => {
    const res = await postAs("Application/X-WWW-Form-Urlencoded; charset=UTF-8", new URLSearchParams({ network_slug: "eth", address: "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed" }).toString(), "application/json");
    expect({ status: res.status, body: await res.json() }).toEqual({ status: 200, body: { message: "Watching 0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed on eth." } });
  });
});

describe("the sign-in post", () => {
  test("of JSON is refused 415 and uses no link; the link signs in afterwards", async () => {
    const url = await signInLink(td, shop.accountId);
    const json = await fetch(`${td.url}/cabinet/login`, { method: "POST", body: JSON.stringify({ token: tokenOf(url) }), headers: { "content-type": "application/json", "x-forwarded-for": "192.0.2.2" }, redirect: "manual" });
    expect([json.status, json.headers.get("set-cookie")]).toEqual([415, null]);
    expect(alertOf(await json.text())).toBe(NOT_A_FORM);
    const hostile = await fetch(`${td.url}/cabinet/login`, { method: "POST", body: HOSTILE, headers: { "content-type": "application/json", "x-forwarded-for": "192.0.2.2" }, redirect: "manual" });
    expect(hostile.status).toBe(415);
    const form = await fetch(`${td.url}/cabinet/login`, { method: "POST", body: new URLSearchParams({ token: tokenOf(url) }), headers: { "x-forwarded-for": "192.0.2.2" }, redirect: "manual" });
    expect(form.status).toBe(303);
  });

  test("from another site is refused 403 before its body is sent whole", async () => {
    const answer = await postCutShort("/cabinet/login", { "sec-fetch-site": "cross-site", "x-forwarded-for": "192.0.2.3" });
    expect(answer.status).toBe(403);
    expect(alertOf(answer.body)).toBe("A sign-in must be confirmed on the sign-in page of this cabinet.");
  });

  test("from a client waiting out the throttle is refused 429 before its body is sent whole", async () => {
    const guesser = { "x-forwarded-for": "192.0.2.4" };
    for (let i = 0; i < 10; i++) {
      const res = await fetch(`${td.url}/cabinet/login`, { method: "POST", body: new URLSearchParams({ token: `guess-${i}` }), headers: guesser, redirect: "manual" });
      expect(res.status).toBe(410);
    }
    const answer = await postCutShort("/cabinet/login", guesser);
    expect([answer.status, alertOf(answer.body)?.startsWith("Too many sign-in links that did not work came from your address.")]).toEqual([429, true]);
  });
});
