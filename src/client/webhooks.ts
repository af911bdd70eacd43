import { buffer, concatBytes, fromBase64, fromHex, utf8 } from "./bytes.ts";
import { WebhookVerificationError } from "./errors.ts";
import type { WebhookEvent } from "./types.ts";

// chainwatch signs every webhook twice, with one key (the bytes of the account's `whsec_<base64>`
// secret after the prefix, base64-decoded):
//   Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature = "v1,<base64 HMAC-SHA256
//     of <id>.<timestamp>.<body>>", possibly several space-separated entries (one per secret
//     while a secret is being rotated);
//   chainwatch's own: X-Timestamp, X-Signature = lower-case hex HMAC-SHA256 of <timestamp>.<body>.
// HMACs are checked with crypto.subtle.verify, which compares in constant time.

/** Request headers as a server framework hands them over: a WHATWG Headers, or Node's plain object. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export type VerifyWebhookOptions = {
  /** How far the signed timestamp may be from now, either way; default 300 seconds. */
  toleranceSeconds?: number;
  /** The instant to judge the timestamp against; default the current time. */
  now?: Date;
};

const HMAC = { name: "HMAC", hash: "SHA-256" } as const;
const SECRET_PREFIX = "whsec_";
const UNIX_SECONDS = /^\d{1,12}$/;

/**
 * Checks that a webhook came from chainwatch, signed with `webhookSecret` (`whsec_…`) within the
 * tolerance, and returns its body parsed. The Standard Webhooks headers are checked when present
 * (any of several `v1,` signatures may match), else `X-Timestamp`/`X-Signature`. Pass the body
 * exactly as received, before any JSON parsing. Throws a WebhookVerificationError otherwise.
 */
export async function verifyWebhook(
  headers: WebhookHeaders,
  rawBody: string | Uint8Array | ArrayBuffer,
  webhookSecret: string,
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  const body = rawBody instanceof ArrayBuffer ? new Uint8Array(rawBody) : utf8(rawBody);
  const key = await importWebhookKey(webhookSecret);
  const get = headerReader(headers);
  const id = get("webhook-id");
  const stdTimestamp = get("webhook-timestamp");
  const stdSignature = get("webhook-signature");
  const xTimestamp = get("x-timestamp");
  const xSignature = get("x-signature");

  let verified: boolean;
  if (id !== null && stdTimestamp !== null && stdSignature !== null) {
    checkTimestamp(stdTimestamp, options);
    const signed = concatBytes(utf8(`${id}.${stdTimestamp}.`), body);
    const candidates = stdSignature
      .split(" ")
      .filter((entry) => entry.startsWith("v1,"))
      .map((entry) => fromBase64(entry.slice(3)));
    verified = await anyMatches(key, candidates, signed);
  } else if (xTimestamp !== null && xSignature !== null) {
    checkTimestamp(xTimestamp, options);
    verified = await anyMatches(key, [fromHex(xSignature.trim())], concatBytes(utf8(`${xTimestamp}.`), body));
  } else {
    throw new WebhookVerificationError("missing_headers", "Missing signature headers: expected webhook-id, webhook-timestamp and webhook-signature, or X-Timestamp and X-Signature");
  }
  if (!verified) throw new WebhookVerificationError("invalid_signature", "No signature matches the body");
  return parseBody(body);
}

/** The HMAC key of a `whsec_<base64>` secret (the prefix may be left off). */
async function importWebhookKey(secret: string): Promise<CryptoKey> {
  const bytes = fromBase64(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret);
  // A wrong secret is the receiver's configuration, not the sender's fault: not a verification error.
  if (bytes === null || bytes.length === 0) throw new TypeError("webhookSecret must be the account's whsec_<base64> webhook secret");
  return crypto.subtle.importKey("raw", buffer(bytes), HMAC, false, ["verify"]);
}

/** Whether any candidate signature (null: an entry that did not decode) is the HMAC of `data`. */
async function anyMatches(key: CryptoKey, candidates: (Uint8Array | null)[], data: Uint8Array): Promise<boolean> {
  const signed = buffer(data);
  let matched = false;
  for (const candidate of candidates) {
    if (candidate !== null && (await crypto.subtle.verify("HMAC", key, buffer(candidate), signed))) matched = true;
  }
  return matched;
}

function checkTimestamp(timestamp: string, options: VerifyWebhookOptions): void {
  if (!UNIX_SECONDS.test(timestamp)) throw new WebhookVerificationError("invalid_timestamp", `Timestamp is not Unix seconds: ${timestamp.slice(0, 32)}`);
  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const tolerance = options.toleranceSeconds ?? 300;
  if (Math.abs(nowSeconds - Number(timestamp)) > tolerance) {
    throw new WebhookVerificationError("stale_timestamp", `Timestamp ${timestamp} is more than ${tolerance} s from now (${nowSeconds})`);
  }
}

function parseBody(body: Uint8Array): WebhookEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(body));
  } catch {
    throw new WebhookVerificationError("invalid_body", "Body is not JSON");
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new WebhookVerificationError("invalid_body", "Body is not a JSON object");
  return parsed as WebhookEvent;
}

/** A case-insensitive header lookup over either header shape; a repeated header gives its first value. */
function headerReader(headers: WebhookHeaders): (name: string) => string | null {
  if (typeof (headers as Headers).get === "function" && typeof (headers as Headers).has === "function") {
    return (name) => (headers as Headers).get(name);
  }
  const lower = new Map<string, string>();
  for (const [k, v] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    const value = Array.isArray(v) ? v[0] : v;
    if (value !== undefined) lower.set(k.toLowerCase(), value);
  }
  return (name) => lower.get(name) ?? null;
}
