import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { INGEST_TOKEN, signedHeaders, startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { signIn } from "../cabinet/support.ts";

// Bad input gets a clear error and never a 500: every operation of the OpenAPI document, signed
// as a real client signs, with each field of its documented example replaced in turn by values a
// careless or hostile client sends (wrong types, huge numbers, empty and oversized strings, NUL
// bytes, nested objects), each query parameter and path parameter likewise, and a set of whole
// bodies that are not the object asked for. Every answer must be a 2xx or a 4xx; every 4xx must be
// JSON with an `error` string. The daemon stays healthy through it all.

type Json = Record<string, any>;

const HOSTILE_VALUES: unknown[] = [
  null,
  true,
  0,
  -1,
  1.5,
  1e308,
  -1e308,
  2 ** 64,
  "",
  " ",
  "x".repeat(5000),
  "\u0000",
  "\ud83d\ude00",
  "-1",
  "1e999",
  "NaN",
  "0x",
  `0x${"f".repeat(64)}`,
  "../../../etc/passwd",
  "<script>alert(1)</script>",
  [],
  [null],
  {},
  { nested: { deeper: [1, 2, 3] } },
];

const HOSTILE_TEXT = ["", "-1", "0", "1.5", "1e999", "NaN", "x".repeat(3000), "%00", "\u0000", "..%2F..%2Fetc", "[]", "{}", "true", "\ud83d\ude00", " "];

const HOSTILE_BODIES: (string | Uint8Array)[] = [
  "",
  "null",
  "[]",
  "1",
  '"a string"',
  "{",
  '{"a":',
  "{}",
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  "[".repeat(5000),
  `{"a":${"[".repeat(2000)}${"]".repeat(2000)}}`,
  new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]),
];

/** Each leaf of `example` (objects and arrays, recursively) replaced by `value`, one copy per leaf. */
function mutations(example: unknown, value: unknown): unknown[] {
  if (example === null || typeof example !== "object") return [value];
  const out: unknown[] = [];
  const entries = Array.isArray(example) ? example.slice(0, 1).map((v, i) => [i, v] as const) : Object.entries(example);
  for (const [key, child] of entries) {
    for (const replaced of mutations(child, value)) {
      const copy: any = Array.isArray(example) ? [...example] : { ...example };
      copy[key] = replaced;
      out.push(copy);
    }
    // The field replaced whole as well, when it is itself an object or array.
    if (child !== null && typeof child === "object") {
      const copy: any = Array.isArray(example) ? [...example] : { ...example };
      copy[key] = value;
      out.push(copy);
    }
  }
  return out;
}

let td: TestDaemon;
let client: TestClient;
let doc: Json;

beforeAll(async () => {
  td = await startTestDaemon({ config: { rate_limit: { per_key_rps: 100_000 }, cabinet: { enabled: true } } });
  client = await td.client({ credits: 1_000_000_000 });
  doc = (await (await fetch(`${td.url}/openapi/json`)).json()) as Json;
});
afterAll(async () => {
  await td.stop();
});

type Operation = { method: string; path: string; op: Json };

function operations(): Operation[] {
  const out: Operation[] = [];
  for (const [path, ops] of Object.entries(doc.paths as Json)) {
    for (const [method, op] of Object.entries(ops as Json)) out.push({ method: method.toUpperCase(), path, op: op as Json });
  }
  return out;
}

/** The path with its parameters filled: documented examples where there are, a plausible value otherwise. */
function filledPath(path: string, override: Record<string, string> = {}): string {
  return path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(override[name] ?? (name === "network" ? "eth" : name === "api_key" ? client.apiKey : "pay_nope")));
}

/** Sends one request as the operation's caller would: signed, with the ingest token, or the key in the path. */
async function send(method: string, path: string, body?: string | Uint8Array): Promise<Response> {
  if (path.startsWith("/ingest/")) {
    return fetch(`${td.url}${path}`, { method, headers: { authorization: `Bearer ${INGEST_TOKEN}`, "content-type": "application/json" }, body });
  }
  if (path.startsWith("/v1/") || path.startsWith("/rpc/")) {
    if (body instanceof Uint8Array) {
      // Bytes that are not UTF-8: signed over the exact bytes sent.
      return fetch(`${td.url}${path}`, { method, body, headers: { "content-type": "application/json", ...signedHeaders(client, method, path, body) } });
    }
    return client.request(method, path, body);
  }
  return fetch(`${td.url}${path}`, { method, body });
}

/** One answer as the test judges it; the body is cut short for the failure message only. */
type Answer = { request: string; status: number; body: string; namesProblem: boolean };

/** The answers that break the rule: a 5xx, or a 4xx that is not JSON with an `error`. */
function broken(answers: Answer[], upstreamMayFail: boolean): Answer[] {
  return answers.filter((a) => {
    // With no node behind a network, /rpc answers that its upstream failed (502/503): not a bug.
    if (a.status >= 500) return !(upstreamMayFail && a.status !== 500);
    return a.status >= 400 && !a.namesProblem;
  });
}

async function answer(label: string, res: Promise<Response>): Promise<Answer> {
  const r = await res;
  const text = await r.text();
  let namesProblem = false;
  // The payers' checkout pages are for a browser: their not-found page says what is wrong in its heading.
  if (label.includes(" /pay/") && r.headers.get("content-type")?.startsWith("text/html")) namesProblem = /<h1>[^<]+<\/h1>/.test(text);
  if (r.headers.get("content-type")?.includes("application/json")) {
    try {
      const parsed = JSON.parse(text);
      // The API's envelope names the problem in a string; JSON-RPC's in an error object with a message.
      namesProblem = (typeof parsed.error === "string" && parsed.error.length > 0) || typeof parsed.error?.message === "string";
    } catch {}
  }
  return { request: label.slice(0, 300), status: r.status, body: text.slice(0, 300), namesProblem };
}

describe("hostile input to every documented operation", () => {
  test("each field of each request body, replaced by hostile values, is answered 2xx or a 4xx naming the problem", async () => {
    const answers: Answer[] = [];
    const statuses = new Map<number, number>();
    let sent = 0;
    for (const { method, path, op } of operations()) {
      const example = op.requestBody?.content?.["application/json"]?.example;
      if (example === undefined) continue;
      const target = filledPath(path);
      const rpc = path.startsWith("/rpc/");
      const batch: Promise<Answer>[] = [];
      for (const value of HOSTILE_VALUES) {
        for (const body of mutations(example, value)) {
          batch.push(answer(`${method} ${target} ${JSON.stringify(body).slice(0, 200)}`, send(method, target, JSON.stringify(body))));
        }
      }
      const got = await Promise.all(batch);
      for (const a of got) statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
      answers.push(...broken(got, rpc));
      sent += batch.length;
    }
    expect(sent).toBeGreaterThan(1000);
    expect(answers).toEqual([]);
    // Every request reached its handler: none was turned away at the door for its signature or
    // content type, and some hostile values are harmless and accepted.
    expect([statuses.get(401), statuses.get(415)]).toEqual([undefined, undefined]);
    expect(statuses.get(200) ?? 0).toBeGreaterThan(0);
    expect(statuses.get(400) ?? 0).toBeGreaterThan(sent / 2);
  });

  test("whole bodies that are not the object asked for are answered with a 4xx naming the problem", async () => {
    const answers: Answer[] = [];
    for (const { method, path, op } of operations()) {
      if (!op.requestBody) continue;
      const target = filledPath(path);
      const rpc = path.startsWith("/rpc/");
      const got = await Promise.all(HOSTILE_BODIES.map((body, i) => answer(`${method} ${target} hostile body #${i}`, send(method, target, body))));
      for (const a of broken(got, rpc)) answers.push(a);
      // None of these is a valid request, but for a few: `[]` is an empty ingest batch (nothing to
      // store, 202), and the rotation's body is optional with every field optional (no body,
      // `null` and `{}` all mean its defaults).
      const valid = (a: Answer) =>
        a.request === "POST /ingest/blocks hostile body #2" || /^POST \/v1\/address-watch\/webhook\/secret\/rotate hostile body #[017]$/.test(a.request);
      if (!rpc) for (const a of got) if (a.status < 400 && !valid(a)) answers.push(a);
    }
    expect(answers).toEqual([]);
  });

  test("hostile query and path parameters are answered 2xx or a 4xx naming the problem", async () => {
    const answers: Answer[] = [];
    for (const { method, path, op } of operations()) {
      if (method !== "GET" && !path.includes("{")) continue;
      const rpc = path.startsWith("/rpc/");
      const body = op.requestBody?.content?.["application/json"]?.example;
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const params = (op.parameters ?? []) as { in: string; name: string }[];
      const batch: Promise<Answer>[] = [];
      for (const p of params) {
        for (const value of HOSTILE_TEXT) {
          const target = p.in === "path" ? filledPath(path, { [p.name]: value }) : `${filledPath(path)}?${p.name}=${encodeURIComponent(value)}`;
          batch.push(answer(`${method} ${target}`, send(method, target, payload)));
        }
      }
      for (const a of broken(await Promise.all(batch), rpc)) answers.push(a);
    }
    expect(answers).toEqual([]);
  });

  test("a NUL character is refused wherever it comes in, naming where, on either database", async () => {
    const nul = (where: string) => ({ status: 400, body: { error: `${where} must not contain the NUL character (\\u0000)` } });
    const got = async (res: Promise<Response>) => {
      const r = await res;
      return { status: r.status, body: await r.json() };
    };
    // A JSON body: the field is named, however deep.
    expect(await got(client.request("POST", "/v1/payments", { order_id: "a\u0000b", network: "eth", address: "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed", amount: "1" }))).toEqual(nul("order_id"));
    const block = { network: "eth", height: 7, hash: "0x07", parent_hash: null, transactions: [{ hash: "0x\u0000", from: "0x01", to: "0x02", value: "1" }] };
    expect(await got(send("POST", "/ingest/blocks", JSON.stringify(block)))).toEqual(nul("transactions[0].hash"));
    expect(await got(client.request("PUT", "/v1/address-watch/webhook", { url: null, enabled: false, events: { payment_networks: ["eth", "\u0000"] } }))).toEqual(
      nul("events.payment_networks[1]"),
    );
    // A query or path parameter, on the app's routes and on /rpc alike.
    const inUrl = { status: 400, body: { error: "The URL must not contain the NUL character (\\u0000): %00" } };
    for (const path of ["/v1/payments?order_id=%00", "/v1/payments/pay_%00", "/v1/address-watch/events?after=%00"]) {
      expect(await got(client.request("GET", path))).toEqual(inUrl);
    }
    expect(await got(client.request("POST", "/rpc/eth%00", { jsonrpc: "2.0", id: 1, method: "eth_blockNumber" }))).toEqual(inUrl);
    // A cabinet form, once its session lets it be read.
    const { cookie } = await signIn(td, client.accountId);
    const form = await fetch(`${td.url}/cabinet/addresses`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie, accept: "application/json" },
      body: "network_slug=eth&address=0x%00",
    });
    expect({ status: form.status, body: await form.json() }).toEqual(nul("address"));
    // Nothing of it was stored.
    const orders = (await (await client.request("GET", "/v1/payments")).json()) as { payments: { order_id: string }[] };
    expect(orders.payments.filter((p) => p.order_id.includes("\u0000"))).toEqual([]);
  });

  test("the daemon is healthy afterwards, and its data whole", async () => {
    const health = await fetch(`${td.url}/healthz`);
    expect([health.status, await health.json()]).toEqual([200, { ok: true }]);
    const account = await client.request("GET", "/v1/account");
    expect(account.status).toBe(200);
  });
});
