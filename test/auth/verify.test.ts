import { describe, expect, test } from "bun:test";
import { createHash, createHmac } from "node:crypto";
import { createLocalRateLimiter } from "../../src/auth/rate-limiter.ts";
import { type KeyRecord, type SignedRequest, verifySignedRequest } from "../../src/auth/verify.ts";
import { parseCidr, type Cidr } from "../../src/net/ip.ts";

const NOW_MS = Date.UTC(2026, 10, 21, 12, 0, 0);
const NOW_S = NOW_MS / 1000;
const API_KEY = "5b0c8f7e-1d2a-4c3b-9e8f-0a1b2c3d4e5f";
const SECRET = "a".repeat(64);

function cidrs(...texts: string[]): Cidr[] {
  return texts.map((t) => parseCidr(t)!);
}

/** Signs independently of chainwatch's own helpers (node:crypto directly). */
function sign(secret: string, ts: string, method: string, path: string, body: string): string {
  const bodyHash = createHash("sha256").update(body).digest("hex");
  return createHmac("sha256", secret).update(`${ts}\n${method}\n${path}\n${bodyHash}`).digest("hex");
}

/** A request that passes every check unless a field is overridden. */
function request(over: Partial<SignedRequest> & { body?: string; signWith?: string } = {}): SignedRequest {
  const ts = over.timestamp === undefined ? String(NOW_S) : over.timestamp;
  const body = over.body ?? "";
  return {
    apiKey: API_KEY,
    timestamp: ts,
    signature: sign(over.signWith ?? SECRET, ts ?? "", over.method ?? "GET", over.path ?? "/v1/account", body),
    method: "GET",
    path: "/v1/account",
    bodySha256: createHash("sha256").update(body).digest("hex"),
    clientIp: "127.0.0.1",
    ...over,
  };
}

/** An in-memory key table and a fresh limiter per verifier. */
function verifier(keys: KeyRecord[] = [{ apiKey: API_KEY, accountId: "acc_1", secret: SECRET, allowCidrs: [], accountDisabled: false }], rateLimit = 10) {
  const table = new Map(keys.map((k) => [k.apiKey, k]));
  const limiter = createLocalRateLimiter();
  let nowMs = NOW_MS;
  return {
    verify: (req: SignedRequest) =>
      verifySignedRequest(req, { findKey: (k) => table.get(k) ?? null, limiter, rateLimit, at: { wallMs: nowMs, monoMs: nowMs } }),
    at(ms: number) {
      nowMs = ms;
    },
  };
}

async function codeOf(req: SignedRequest, v = verifier()): Promise<string> {
  const outcome = await v.verify(req);
  return outcome.ok ? "OK" : outcome.code;
}

describe("verifySignedRequest: each row of the docs/api.md table", () => {
  test("accepts a correctly signed request and names its key", async () => {
    const outcome = await verifier().verify(request());
    expect(outcome).toEqual({ ok: true, key: { apiKey: API_KEY, accountId: "acc_1", secret: SECRET, allowCidrs: [], accountDisabled: false } });
  });

  test.each([
    ["X-Api-Key absent", { apiKey: null }, "MISSING_API_KEY"],
    ["X-Api-Key empty", { apiKey: "" }, "MISSING_API_KEY"],
    ["an unknown key", { apiKey: "00000000-0000-4000-8000-000000000000" }, "INVALID_API_KEY"],
    ["X-Timestamp absent", { timestamp: null }, "INVALID_TIMESTAMP"],
    ["X-Timestamp empty", { timestamp: "" }, "INVALID_TIMESTAMP"],
    ["a fractional timestamp", { timestamp: "1763726400.5" }, "INVALID_TIMESTAMP"],
    ["a non-numeric timestamp", { timestamp: "abc" }, "INVALID_TIMESTAMP"],
    ["a negative timestamp", { timestamp: "-1" }, "INVALID_TIMESTAMP"],
    ["a timestamp in milliseconds", { timestamp: String(NOW_MS) }, "INVALID_TIMESTAMP"],
    ["a timestamp 301 s old", { timestamp: String(NOW_S - 301) }, "INVALID_TIMESTAMP"],
    ["a timestamp 301 s ahead", { timestamp: String(NOW_S + 301) }, "INVALID_TIMESTAMP"],
    ["X-Signature absent", { signature: null }, "MISSING_SIGNATURE"],
    ["X-Signature empty", { signature: "" }, "MISSING_SIGNATURE"],
    ["a signature made with another secret", { signWith: "b".repeat(64) }, "INVALID_SIGNATURE"],
    ["a truncated signature", { signature: "ab12" }, "INVALID_SIGNATURE"],
    ["a signature over another method", { method: "POST", signature: sign(SECRET, String(NOW_S), "GET", "/v1/x", "") }, "INVALID_SIGNATURE"],
  ] as const)("refuses %s with %s", async (_name, over, code) => {
    expect(await codeOf(request(over as Partial<SignedRequest>))).toBe(code);
  });

  test.each([
    ["300 s old", NOW_S - 300],
    ["299 s old", NOW_S - 299],
    ["299 s ahead", NOW_S + 299],
    ["300 s ahead", NOW_S + 300],
  ])("accepts a timestamp %s", async (_name, ts) => {
    expect(await codeOf(request({ timestamp: String(ts) }))).toBe("OK");
  });

  test("signs the method in upper case and the path exactly", async () => {
    const signature = sign(SECRET, String(NOW_S), "DELETE", "/v1/address-watch/addresses", '{"watch_id":"aw_1"}');
    const req = request({ method: "delete", path: "/v1/address-watch/addresses", body: '{"watch_id":"aw_1"}', signature });
    expect(await codeOf(req)).toBe("OK");
    expect(await codeOf({ ...req, path: "/v1/address-watch/addresses/" })).toBe("INVALID_SIGNATURE");
  });

  test("a body differing by one byte from the signed one fails", async () => {
    const signed = request({ method: "POST", body: '{"a": 1}' });
    expect(await codeOf(signed)).toBe("OK");
    const reserialized = { ...signed, bodySha256: createHash("sha256").update('{"a":1}').digest("hex") };
    expect(await codeOf(reserialized)).toBe("INVALID_SIGNATURE");
  });

  test("refuses a client IP outside the key's allowlist with IP_NOT_ALLOWED", async () => {
    const v = verifier([{ apiKey: API_KEY, accountId: "acc_1", secret: SECRET, allowCidrs: cidrs("10.0.0.0/8", "2001:db8::/32"), accountDisabled: false }]);
    expect(await codeOf(request({ clientIp: "127.0.0.1" }), v)).toBe("IP_NOT_ALLOWED");
    expect(await codeOf(request({ clientIp: "10.20.30.40" }), v)).toBe("OK");
    expect(await codeOf(request({ clientIp: "::ffff:10.1.1.1" }), v)).toBe("OK");
    expect(await codeOf(request({ clientIp: "2001:db8::7" }), v)).toBe("OK");
    expect(await codeOf(request({ clientIp: "2001:db9::7" }), v)).toBe("IP_NOT_ALLOWED");
    expect(await codeOf(request({ clientIp: null }), v)).toBe("IP_NOT_ALLOWED");
    expect(await codeOf(request({ clientIp: "not-an-ip" }), v)).toBe("IP_NOT_ALLOWED");
  });

  test("refuses a key of a disabled account with ACCOUNT_DISABLED, after its signature and allowlist, without using up the window", async () => {
    const disabled = verifier([{ apiKey: API_KEY, accountId: "acc_1", secret: SECRET, allowCidrs: cidrs("10.0.0.0/8"), accountDisabled: true }], 1);
    expect(await codeOf(request({ signWith: "b".repeat(64), clientIp: "10.0.0.1" }), disabled)).toBe("INVALID_SIGNATURE");
    expect(await codeOf(request({ clientIp: "1.2.3.4" }), disabled)).toBe("IP_NOT_ALLOWED");
    expect(await codeOf(request({ clientIp: "10.0.0.1" }), disabled)).toBe("ACCOUNT_DISABLED");
    expect(await codeOf(request({ clientIp: "10.0.0.1" }), disabled)).toBe("ACCOUNT_DISABLED");
  });

  test("refuses the request past per_key_rps with RATE_LIMITED", async () => {
    const v = verifier(undefined, 2);
    const codes = [];
    for (let i = 0; i < 3; i++) codes.push(await codeOf(request(), v));
    expect(codes).toEqual(["OK", "OK", "RATE_LIMITED"]);
  });
});

describe("verifySignedRequest: the order of the checks", () => {
  const allowlisted = () =>
    verifier([{ apiKey: API_KEY, accountId: "acc_1", secret: SECRET, allowCidrs: cidrs("10.0.0.0/8"), accountDisabled: false }], 1);

  test.each([
    ["missing key beats everything", { apiKey: null, timestamp: "abc", signature: null, clientIp: "1.2.3.4" }, "MISSING_API_KEY"],
    ["unknown key beats a bad timestamp", { apiKey: "00000000-0000-4000-8000-000000000000", timestamp: "abc" }, "INVALID_API_KEY"],
    ["a malformed key beats a missing signature", { apiKey: "not-a-uuid", signature: null }, "INVALID_API_KEY"],
    ["a bad timestamp beats a missing signature", { timestamp: String(NOW_S - 301), signature: null }, "INVALID_TIMESTAMP"],
    ["a missing timestamp beats a bad signature", { timestamp: null, signature: "00" }, "INVALID_TIMESTAMP"],
    ["a missing signature beats a disallowed IP", { signature: null, clientIp: "1.2.3.4" }, "MISSING_SIGNATURE"],
    ["a bad signature beats a disallowed IP", { signWith: "b".repeat(64), clientIp: "1.2.3.4" }, "INVALID_SIGNATURE"],
  ] as const)("%s", async (_name, over, code) => {
    expect(await codeOf(request(over as Partial<SignedRequest>), allowlisted())).toBe(code);
  });

  test("a disallowed IP beats the rate limit and does not use up the window", async () => {
    const v = allowlisted();
    expect(await codeOf(request({ clientIp: "1.2.3.4" }), v)).toBe("IP_NOT_ALLOWED");
    expect(await codeOf(request({ clientIp: "1.2.3.4" }), v)).toBe("IP_NOT_ALLOWED");
    expect(await codeOf(request({ clientIp: "10.0.0.1" }), v)).toBe("OK");
    expect(await codeOf(request({ clientIp: "10.0.0.1" }), v)).toBe("RATE_LIMITED");
  });

  test("rejected signatures never count toward the rate limit", async () => {
    const v = verifier(undefined, 3);
    for (let i = 0; i < 10; i++) expect(await codeOf(request({ signWith: "b".repeat(64) }), v)).toBe("INVALID_SIGNATURE");
    const codes = [];
    for (let i = 0; i < 4; i++) codes.push(await codeOf(request(), v));
    expect(codes).toEqual(["OK", "OK", "OK", "RATE_LIMITED"]);
  });

  test("the window slides: a request is accepted again once the oldest accepted one is 1000 ms old", async () => {
    const v = verifier(undefined, 2);
    expect(await codeOf(request(), v)).toBe("OK");
    v.at(NOW_MS + 400);
    expect(await codeOf(request(), v)).toBe("OK");
    v.at(NOW_MS + 999);
    expect(await codeOf(request(), v)).toBe("RATE_LIMITED");
    v.at(NOW_MS + 1000);
    expect(await codeOf(request(), v)).toBe("OK");
    v.at(NOW_MS + 1399);
    expect(await codeOf(request(), v)).toBe("RATE_LIMITED");
  });
});

describe("verifySignedRequest: the body is read only when the signature is checked", () => {
  /** The request with its body behind a reader that counts its calls. */
  function lazy(over: Partial<SignedRequest> & { body?: string; signWith?: string }) {
    const req = request({ method: "POST", ...over });
    const hash = req.bodySha256 as string;
    const reads = { count: 0 };
    return { req: { ...req, bodySha256: async () => (reads.count++, hash) }, reads };
  }

  test.each([
    ["no X-Api-Key", "MISSING_API_KEY", 0, { apiKey: null }],
    ["an unknown key", "INVALID_API_KEY", 0, { apiKey: "00000000-0000-4000-8000-000000000000" }],
    ["a stale timestamp", "INVALID_TIMESTAMP", 0, { timestamp: String(NOW_S - 301) }],
    ["no X-Signature", "MISSING_SIGNATURE", 0, { signature: null }],
    ["a wrong signature", "INVALID_SIGNATURE", 1, { body: '{"a":1}', signWith: "b".repeat(64) }],
    ["a correct signature", "OK", 1, { body: '{"a":1}' }],
  ] as const)("%s: %s, the body read %d times", async (_name, code, count, over) => {
    const { req, reads } = lazy(over as Partial<SignedRequest>);
    expect([await codeOf(req), reads.count]).toEqual([code, count]);
  });

  test("a throw of the reader (a body over the limit) passes through", async () => {
    const req = { ...request({ method: "POST" }), bodySha256: () => Promise.reject(new Error("too large")) };
    await expect(verifier().verify(req)).rejects.toThrow("too large");
  });
});
