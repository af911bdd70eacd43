import { describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { canonicalString, constantTimeEqual, hmacSha256Hex, sha256Hex } from "../../src/auth/canonical.ts";
import { signedHeaders } from "../support/harness.ts";

describe("canonical string and signature (docs/api.md)", () => {
  test("the SHA-256 of an empty body is the hash of the empty string", () => {
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });

  test("hashes the raw bytes exactly as sent, whitespace included", () => {
    expect(sha256Hex('{"a":1}')).toBe("015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862");
    expect(sha256Hex('{"a": 1}')).not.toBe(sha256Hex('{"a":1}'));
    expect(sha256Hex(new TextEncoder().encode('{"a":1}'))).toBe(sha256Hex('{"a":1}'));
  });

  test("joins four lines with \\n, upper-cases the method and adds no trailing newline", () => {
    expect(canonicalString("1763726400", "post", "/v1/payments", "ab")).toBe("1763726400\nPOST\n/v1/payments\nab");
  });

  test("the HMAC key is the UTF-8 bytes of the secret string, not its hex decoding", () => {
    const secret = "00ff".repeat(16);
    expect(hmacSha256Hex(secret, "m")).toBe(createHmac("sha256", Buffer.from(secret, "utf8")).update("m").digest("hex"));
    expect(hmacSha256Hex(secret, "m")).not.toBe(createHmac("sha256", Buffer.from(secret, "hex")).update("m").digest("hex"));
  });

  test("canonical string, body hash and HMAC together give the signature an independent client sends", () => {
    const canonical = canonicalString("1763726400", "get", "/v1/account", sha256Hex(""));
    const client = signedHeaders({ apiKey: "k", secret: "s" }, "GET", "/v1/account", "", 1763726400);
    expect(hmacSha256Hex("s", canonical)).toBe(client["X-Signature"]);
  });

  test.each([
    ["abc", "abc", true],
    ["abc", "abd", false],
    ["abc", "ab", false],
    ["", "", true],
  ])("constantTimeEqual(%p, %p) is %p", (a, b, equal) => {
    expect(constantTimeEqual(a, b)).toBe(equal);
  });
});
