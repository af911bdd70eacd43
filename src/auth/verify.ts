import type { AuthFailure, Failure, Result } from "../lib/error-codes.ts";
import type { Instant } from "../lib/clock.ts";
import { andThen, type MaybePromise } from "../lib/maybe-promise.ts";
import { type Cidr, cidrContains, parseIp } from "../net/ip.ts";
import { canonicalString, hexMatches, hmacSha256 } from "./canonical.ts";
import type { RateLimiter } from "./rate-limiter.ts";

/** What the verifier needs to know about an API key; `accountDisabled`: an operator disabled its account. */
export type KeyRecord = { apiKey: string; accountId: string; secret: string; allowCidrs: Cidr[]; accountDisabled: boolean };

export type { AuthFailure };

export type AuthOutcome = Result<{ key: KeyRecord }, Failure<AuthFailure>>;

/**
 * The client's IP, or a function that finds it: asking the server for the socket's peer costs more
 * than the rest of the check, and only a key with an IP allowlist needs it.
 */
export type ClientIp = string | null | (() => string | null);

/**
 * The SHA-256 (hex) of the raw body, or a function that reads the body and hashes it: called only
 * for a request whose key, timestamp and signature header check out, so no other request has its
 * body read at all. What it throws (a body over the limit) passes through.
 */
export type BodySha256 = string | (() => Promise<string>);

/** A request as the verifier sees it: headers, the signed path, the raw body's SHA-256, the client IP. */
export type SignedRequest = {
  apiKey: string | null;
  timestamp: string | null;
  signature: string | null;
  method: string;
  path: string;
  bodySha256: BodySha256;
  clientIp: ClientIp;
};

export type VerifyDeps = {
  findKey(apiKey: string): MaybePromise<KeyRecord | null>;
  limiter: RateLimiter;
  rateLimit: number;
  /** Now: the timestamp is checked against the wall clock, the rate limit counts on both (rate-limiter.ts). */
  at: Instant;
  skewSeconds?: number;
};

const TIMESTAMP = /^\d{1,12}$/;

/**
 * Runs the checks of docs/api.md in order; only a request that passes the signature counts toward
 * the rate limit. Synchronous when the key is cached, the body known and the limiter answers at
 * once (the common case); a promise only when one of them waits.
 */
export function verifySignedRequest(req: SignedRequest, deps: VerifyDeps): MaybePromise<AuthOutcome> {
  if (!req.apiKey) return fail("MISSING_API_KEY");
  return andThen(deps.findKey(req.apiKey), (key) => {
    if (!key) return fail("INVALID_API_KEY");
    const skew = deps.skewSeconds ?? 300;
    const { timestamp, signature } = req;
    if (!timestamp || !TIMESTAMP.test(timestamp)) return fail("INVALID_TIMESTAMP");
    if (Math.abs(Math.floor(deps.at.wallMs / 1000) - Number(timestamp)) > skew) return fail("INVALID_TIMESTAMP");
    if (!signature) return fail("MISSING_SIGNATURE");
    const bodySha256 = typeof req.bodySha256 === "string" ? req.bodySha256 : req.bodySha256();
    return andThen(bodySha256, (sha256): MaybePromise<AuthOutcome> => {
      const expected = hmacSha256(key.secret, canonicalString(timestamp, req.method, req.path, sha256));
      if (!hexMatches(signature, expected)) return fail("INVALID_SIGNATURE");
      if (!keyAllowsIp(key, req.clientIp)) return fail("IP_NOT_ALLOWED");
      // After the signature: only the key's holder learns that its account is disabled.
      if (key.accountDisabled) return fail("ACCOUNT_DISABLED");
      return andThen(deps.limiter.acquire(key.apiKey, deps.rateLimit, 1, deps.at), (admitted): AuthOutcome => (admitted === 0 ? fail("RATE_LIMITED") : { ok: true, key }));
    });
  });
}

/** Whether a key's allowlist admits the client IP (an empty list admits everyone); an unknown client IP never passes a list. */
export function keyAllowsIp(key: KeyRecord, clientIp: ClientIp): boolean {
  return key.allowCidrs.length === 0 || ipAllowed(key.allowCidrs, typeof clientIp === "function" ? clientIp() : clientIp);
}

/** An unknown client IP never passes an allowlist. */
function ipAllowed(cidrs: Cidr[], clientIp: string | null): boolean {
  const ip = clientIp ? parseIp(clientIp) : null;
  return ip !== null && cidrs.some((c) => cidrContains(c, ip));
}

function fail(code: AuthFailure): AuthOutcome {
  return { ok: false, code };
}
