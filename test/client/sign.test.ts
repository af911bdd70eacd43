import { describe, expect, test } from "bun:test";
import { retryAfterSeconds } from "../../src/client/transport.ts";
import { canonicalRequest, signRequest } from "../../src/client/index.ts";
import { signedHeaders } from "../support/harness.ts";

const creds = { apiKey: "3f1c2b4a-0000-4000-8000-000000000001", secret: "ab".repeat(32) };
const TS = 1_795_000_000;

describe("the SDK signs like an independent client (node:crypto)", () => {
  test.each([
    ["GET", "/v1/account", ""],
    ["POST", "/v1/address-watch/addresses", JSON.stringify({ network_slug: "eth", address: "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed" })],
    ["DELETE", "/v1/address-watch/addresses", '{"watch_id":"aw_1"}'],
    ["PUT", "/v1/payments/settings", JSON.stringify({ webhook_url: "https://example.com/crème-brûlée" })],
  ])("%s %s", async (method, path, body) => {
    expect(await signRequest({ ...creds, method, path, body, timestamp: TS })).toEqual(signedHeaders(creds, method, path, body, TS));
  });

  test("a query string is not signed", async () => {
    const withQuery = await signRequest({ ...creds, method: "GET", path: "/v1/account/usage?days=7", timestamp: TS });
    expect(withQuery).toEqual(signedHeaders(creds, "GET", "/v1/account/usage", "", TS));
  });

  test("the canonical string is four lines with no trailing newline, the method upper-cased", () => {
    expect(canonicalRequest(TS, "get", "/v1/account?x=1", "e3b0")).toBe(`${TS}\nGET\n/v1/account\ne3b0`);
  });
});

describe("Retry-After as the SDK reads it", () => {
  const now = Date.UTC(2026, 10, 21, 12, 0, 0);
  test.each([
    ["1", 1],
    [" 7 ", 7],
    ["0", 0],
    ["Sat, 21 Nov 2026 12:00:03 GMT", 3],
    ["Sat, 21 Nov 2026 11:00:00 GMT", 0],
    ["soon", null],
    ["-1", null],
    [null, null],
  ] as const)("%p is %p seconds", (header, seconds) => {
    expect(retryAfterSeconds(header, now)).toBe(seconds);
  });
});
