import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { INGEST_TOKEN, signedHeaders, startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { rawExchange } from "../support/raw-http.ts";

// Bodies sent to do harm, to the signed API and the ingest feed on a real daemon with the default
// 1 MiB body limit: nothing of a body is read before the request has passed every check that does
// not need it, nothing is parsed before it is authenticated, and JSON nested deeper than 64
// levels is refused before JSON.parse builds a level of it.

const MIB = 1_048_576;
/** Arrays nested `levels` deep. */
const nested = (levels: number) => "[".repeat(levels) + "]".repeat(levels);
/** `[[[…]]]` filling the body limit: 512 Ki levels. */
const HOSTILE = nested(MIB / 2);
const WATCHES = "/v1/address-watch/addresses";
const INVALID_JSON = { status: 400, body: { error: "Invalid JSON body." } };

let td: TestDaemon;
let client: TestClient;

beforeAll(async () => {
  td = await startTestDaemon({ config: { rate_limit: { per_key_rps: 1000 } } });
  client = await td.client({ slots: 2 });
});
afterAll(async () => {
  await td.stop();
});

/** What a stranger sends in place of a good signature, as headers for a POST of `body` to `path`. */
function strangers(path: string, body: string): [string, Record<string, string>, { error: string }][] {
  const good = signedHeaders(client, "POST", path, body);
  const unknown = { apiKey: "3f1c2b4a-0000-4000-8000-000000000000", secret: "f".repeat(64) };
  return [
    ["no X-Api-Key", {}, { error: "Missing X-Api-Key" }],
    ["an unknown key", signedHeaders(unknown, "POST", path, body), { error: "Invalid API key" }],
    ["a stale timestamp", signedHeaders(client, "POST", path, body, Math.floor(Date.now() / 1000) - 301), { error: "Missing or invalid X-Timestamp" }],
    ["no X-Signature", { "X-Api-Key": good["X-Api-Key"], "X-Timestamp": good["X-Timestamp"] }, { error: "Missing X-Signature" }],
    ["a wrong signature", { ...good, "X-Signature": "0".repeat(64) }, { error: "Invalid signature" }],
  ];
}

async function post(path: string, body: string, headers: Record<string, string>) {
  const res = await fetch(`${td.url}${path}`, { method: "POST", body, headers: { "Content-Type": "application/json", ...headers } });
  return { status: res.status, body: await res.json() };
}

/** A signed POST of `body` exactly as given. */
const signedPost = (path: string, body: string) => post(path, body, signedHeaders(client, "POST", path, body));

describe("a stranger's body on the signed API", () => {
  test("a 1 MB [[[…]]] body answers exactly the 401 of what is missing or wrong", async () => {
    expect(HOSTILE.length).toBe(MIB);
    for (const [what, headers, error] of strangers(WATCHES, HOSTILE)) {
      expect([what, await post(WATCHES, HOSTILE, headers)]).toEqual([what, { status: 401, body: error }]);
    }
  });

  test("a body that is not JSON under a wrong signature answers 401 Invalid signature, not 400", async () => {
    const [, , , , [, headers]] = strangers(WATCHES, "{nope");
    expect(await post(WATCHES, "{nope", headers)).toEqual({ status: 401, body: { error: "Invalid signature" } });
  });

  test("without a key, a good timestamp or a signature header, the 401 comes before the body is sent whole: none of it is read", async () => {
    const part = HOSTILE.slice(0, 64 * 1024);
    for (const [what, headers, error] of strangers(WATCHES, HOSTILE).slice(0, 4)) {
      const head = [`POST ${WATCHES} HTTP/1.1`, "Host: 127.0.0.1", "Content-Type: application/json", `Content-Length: ${MIB}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
      // The rest of the body never comes: a server that waits for it never answers.
      const answer = await rawExchange(td.url, `${head.join("\r\n")}\r\n\r\n${part}`);
      expect([what, answer.status, JSON.parse(answer.body)]).toEqual([what, 401, error]);
    }
  });
});

describe("a signed body's nesting", () => {
  test("a body nested 65 levels is refused with 400 Invalid JSON body.", async () => {
    expect(await signedPost(WATCHES, nested(65))).toEqual(INVALID_JSON);
  });

  test("a body nested 64 levels is parsed and reaches the use case", async () => {
    // The watch's address nested 63 levels inside the body's object.
    const body = `{"network_slug":"eth","address":${nested(63)}}`;
    expect(await signedPost(WATCHES, body)).toEqual({ status: 400, body: { error: "address must be a string" } });
  });

  test("a signed 1 MB [[[…]]] body is refused with 400 Invalid JSON body.", async () => {
    expect(await signedPost(WATCHES, HOSTILE)).toEqual(INVALID_JSON);
  });
});

describe("the ingest feed", () => {
  const ingest = async (body: string, token = INGEST_TOKEN) => post("/ingest/blocks", body, { Authorization: `Bearer ${token}` });

  test("a 1 MB [[[…]]] body with a wrong token answers 401, before the body is sent whole", async () => {
    expect(await ingest(HOSTILE, "wrong")).toEqual({ status: 401, body: { error: "Invalid ingest token." } });
    const head = ["POST /ingest/blocks HTTP/1.1", "Host: 127.0.0.1", "Content-Type: application/json", `Content-Length: ${MIB}`, "Authorization: Bearer wrong"];
    const answer = await rawExchange(td.url, `${head.join("\r\n")}\r\n\r\n${HOSTILE.slice(0, 64 * 1024)}`);
    expect([answer.status, JSON.parse(answer.body)]).toEqual([401, { error: "Invalid ingest token." }]);
  });

  test("a batch nested 65 levels is refused with 400 Invalid JSON body.; 64 levels is parsed", async () => {
    expect(await ingest(nested(65))).toEqual(INVALID_JSON);
    const block = (hash: string) => `{"network":"eth","height":1,"hash":${hash},"parent_hash":null,"timestamp":1763750000,"transactions":[]}`;
    expect(await ingest(block(nested(63)))).toEqual({ status: 400, body: { error: "hash must be a string" } });
  });

  test("a 1 MB [[[…]]] batch with the right token is refused with 400 Invalid JSON body.", async () => {
    expect(await ingest(HOSTILE)).toEqual(INVALID_JSON);
  });
});
