import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { INGEST_TOKEN, signedHeaders, startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";

// The loose corners an adversarial pass found (issue 8, item 3), each with its exact answer.

let td: TestDaemon;
let c: TestClient;
beforeAll(async () => {
  td = await startTestDaemon({ config: { rate_limit: { per_key_rps: 10_000 }, networks: { labels: { family: "generic", decimals: 0 } } } });
  c = await td.client({ credits: 1000 });
});
afterAll(async () => {
  await td.stop();
});

const answer = async (res: Response) => ({ status: res.status, body: await res.json() });
const EVM = "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed";
const CONTROLS = [
  ["NUL", "\u0000"],
  ["a newline", "\n"],
  ["a tab", "\t"],
  ["an escape", "\u001b[31m"],
  ["DEL", "\u007f"],
  ["a C1 control", "\u0085"],
];

/** The refusal of `field` holding `ch`: NUL has a sentence of its own, refused in every field (src/lib/nul-text.ts). */
const refusedFor = (field: string, ch: string) =>
  ch.includes("\u0000") ? `${field} must not contain the NUL character (\\u0000)` : `${field} must not contain control characters`;

describe("control characters are refused in ids, hashes and addresses", () => {
  const order = (o: Record<string, unknown>) => ({ order_id: "inv-1", network: "eth", address: EVM, amount: "1", ...o });

  test.each(CONTROLS)("%s in order_id", async (_name, ch) => {
    expect(await answer(await c.request("POST", "/v1/payments", order({ order_id: `inv${ch}1` })))).toEqual({
      status: 400,
      body: { error: refusedFor("order_id", ch) },
    });
  });

  test.each([
    ["address", { address: `${EVM}\u0000` }, refusedFor("address", "\u0000")],
    ["address", { address: `${EVM}\u0001` }, "address must not contain control characters"],
    ["asset", { asset: "0xdac17f958d2ee523a2206206994597c13d831ec7\u0000", decimals: 6 }, refusedFor("asset", "\u0000")],
    ["asset", { asset: "0xdac17f958d2ee523a2206206994597c13d831ec7\u0001", decimals: 6 }, "asset must not contain control characters"],
  ])("a payment order's %s", async (_name, fields, error) => {
    expect(await answer(await c.request("POST", "/v1/payments", order(fields)))).toEqual({ status: 400, body: { error } });
  });

  test.each(CONTROLS)("%s in a watched address, even on a generic network that takes free text", async (_name, ch) => {
    const res = await c.request("POST", "/v1/address-watch/addresses", { network_slug: "labels", address: `shop${ch}1` });
    expect(await answer(res)).toEqual({ status: 400, body: { error: refusedFor("address", ch) } });
  });

  const tx = (o: Record<string, unknown> = {}) => ({ hash: "0xt1", from: "0xa", to: "0xb", value: "1", ...o });
  const blk = (o: Record<string, unknown> = {}) => ({ network: "labels", height: 1, hash: "0xb1", parent_hash: "0xb0", transactions: [tx()], ...o });
  test.each([
    ["a block hash", blk({ hash: "0xb1\u0000" }), refusedFor("hash", "\u0000")],
    ["a block hash", blk({ hash: "0xb1\u0002" }), "hash must not contain control characters"],
    ["a parent hash", blk({ parent_hash: "0xb0\n" }), "parent_hash must not contain control characters"],
    ["a transaction hash", blk({ transactions: [tx({ hash: "0x\u0000" })] }), refusedFor("transactions[0].hash", "\u0000")],
    ["a transaction hash", blk({ transactions: [tx({ hash: "0x\u0003" })] }), "transactions[0].hash must not contain control characters"],
    ["a sender", blk({ transactions: [tx({ from: "0xa\u0000" })] }), refusedFor("transactions[0].from", "\u0000")],
    ["a sender", blk({ transactions: [tx({ from: "0xa\u0004" })] }), "transactions[0].from must not contain control characters"],
    ["a recipient", blk({ transactions: [tx({ to: "0xb\u001b" })] }), "transactions[0].to must not contain control characters"],
    [
      "a transfer's asset",
      blk({ transactions: [tx({ transfers: [{ asset: "0xc\u0000", from: "0xa", to: "0xb", value: "1" }] })] }),
      refusedFor("transactions[0].transfers[0].asset", "\u0000"),
    ],
    [
      "a transfer's asset",
      blk({ transactions: [tx({ transfers: [{ asset: "0xc\u0005", from: "0xa", to: "0xb", value: "1" }] })] }),
      "transactions[0].transfers[0].asset must not contain control characters",
    ],
    [
      "a transfer's recipient",
      blk({ transactions: [tx({ transfers: [{ asset: "0xc", from: "0xa", to: "0xb\u007f", value: "1" }] })] }),
      "transactions[0].transfers[0].to must not contain control characters",
    ],
  ])("%s in an ingested block", async (_name, batch, error) => {
    expect(await answer(await td.ingest(batch))).toEqual({ status: 400, body: { error } });
  });
});

describe("ingest addresses are capped like hashes (256 characters)", () => {
  const long = "a".repeat(257);
  const blk = (txFields: Record<string, unknown>) => ({
    network: "labels",
    height: 1,
    hash: "0xcap",
    transactions: [{ hash: "0xt1", value: "1", ...txFields }],
  });
  test.each([
    ["from", { from: long }, "transactions[0].from must be at most 256 characters"],
    ["to", { to: long }, "transactions[0].to must be at most 256 characters"],
    [
      "a transfer's from",
      { transfers: [{ from: long, to: "0xb", value: "1" }] },
      "transactions[0].transfers[0].from must be at most 256 characters",
    ],
    ["a transfer's asset", { transfers: [{ asset: long, value: "1" }] }, "transactions[0].transfers[0].asset must be at most 256 characters"],
  ])("%s", async (_name, fields, error) => {
    expect(await answer(await td.ingest(blk(fields)))).toEqual({ status: 400, body: { error } });
  });

  test("256 characters are accepted", async () => {
    const res = await td.ingest(blk({ from: "a".repeat(256), to: "b".repeat(256) }));
    expect(await answer(res)).toEqual({ status: 202, body: { blocks: 1, events: 0 } });
  });
});

describe("query parameters: empty or repeated is refused like a non-integer", () => {
  test.each([
    ["/v1/account/usage?days=", "days must be an integer from 1 to 90"],
    ["/v1/account/usage?days=5&days=6", "days must be an integer from 1 to 90"],
    ["/v1/account/usage?days=5&days=5", "days must be an integer from 1 to 90"],
    ["/v1/address-watch/events?limit=5&limit=6", "limit must be an integer from 1 to 1000"],
    ["/v1/address-watch/events?type=payment&type=block", "type must be given once"],
    ["/v1/address-watch/events?network=eth&network=btc", "network must be given once"],
    ["/v1/payments?limit=", "limit must be an integer from 1 to 1000"],
    ["/v1/payments?limit=1&limit=2", "limit must be an integer from 1 to 1000"],
    ["/v1/payments?status=seen&status=paid", "status must be given once"],
    ["/v1/payments?order_id=a&order_id=b", "order_id must be given once"],
  ])("%s", async (path, error) => {
    expect(await answer(await c.request("GET", path))).toEqual({ status: 400, body: { error } });
  });

  test("a single value still works", async () => {
    const res = await c.request("GET", "/v1/account/usage?days=2");
    expect(res.status).toBe(200);
    expect(((await res.json()) as { series: unknown[] }).series.length).toBe(2);
  });
});

describe("a body must be declared as JSON", () => {
  const body = JSON.stringify({ network_slug: "eth", address: EVM });
  const post = (contentType: string | null, creds: { apiKey: string; secret: string } = c) =>
    fetch(`${td.url}/v1/address-watch/addresses`, {
      method: "POST",
      // Bytes, so fetch adds no Content-Type of its own.
      body: new TextEncoder().encode(body),
      headers: { ...signedHeaders(creds, "POST", "/v1/address-watch/addresses", body), ...(contentType ? { "Content-Type": contentType } : {}) },
    });

  test.each(["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonx"])(
    "a signed JSON body sent as %s answers 415",
    async (contentType) => {
      expect(await answer(await post(contentType))).toEqual({ status: 415, body: { error: "Content-Type must be application/json." } });
    },
  );

  test.each(["application/json", "application/json; charset=utf-8", "Application/JSON", null])("%s is accepted", async (contentType) => {
    expect((await post(contentType)).status).toBeOneOf([200, 201]);
  });

  test("a stranger's text/plain body gets the authentication error first", async () => {
    const stranger = { apiKey: "3f1c2b4a-0000-4000-8000-000000000000", secret: "f".repeat(64) };
    expect(await answer(await post("text/plain", stranger))).toEqual({ status: 401, body: { error: "Invalid API key" } });
  });

  const ingest = (raw: string | Uint8Array, headers: Record<string, string>) =>
    fetch(`${td.url}/ingest/blocks`, { method: "POST", body: raw, headers: { Authorization: `Bearer ${INGEST_TOKEN}`, ...headers } });

  test("an ingest batch sent as text/plain answers 415", async () => {
    expect(await answer(await ingest("[]", { "Content-Type": "text/plain" }))).toEqual({
      status: 415,
      body: { error: "Content-Type must be application/json." },
    });
  });

  test.each([
    ["an empty body", ""],
    ["a blank body", "  \n"],
  ])("an ingest batch with %s is Invalid JSON body.", async (_name, raw) => {
    expect(await answer(await ingest(raw, { "Content-Type": "application/json" }))).toEqual({ status: 400, body: { error: "Invalid JSON body." } });
  });

  test("an ingest request with no body at all is Invalid JSON body.", async () => {
    const res = await fetch(`${td.url}/ingest/blocks`, { method: "POST", headers: { Authorization: `Bearer ${INGEST_TOKEN}` } });
    expect(await answer(res)).toEqual({ status: 400, body: { error: "Invalid JSON body." } });
  });
});

describe("paths are exact", () => {
  test.each(["/v1/account/", "/v1/account/usage/", "/v1/payments/settings/", "/healthz/"])("%s answers 404 like any unknown path", async (path) => {
    expect(await answer(await c.request("GET", path))).toEqual({ status: 404, body: { error: "Not found." } });
  });
});
