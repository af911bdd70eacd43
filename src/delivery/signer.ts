import { randomBytes } from "../lib/random.ts";

const SECRET_PREFIX = "whsec_";

/** A Standard Webhooks secret: `whsec_` + base64 of 24 random bytes. */
export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(24).toString("base64")}`;
}

/**
 * Whether a rotation's previous secret still signs at `nowMs`: it does until its expiry, then the
 * current secret signs alone (the columns may stay behind until the next rotation).
 */
export function previousSecretSigns(sealed: string | null, expiresAt: number | null, nowMs: number): sealed is string {
  return sealed !== null && expiresAt !== null && nowMs < expiresAt;
}

/** The HMAC key of an account's `whsec_<base64>` webhook secret: the bytes after the prefix, base64-decoded. */
export function webhookKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  return Buffer.from(encoded, "base64");
}

export type SignInput = {
  /** The delivery id: the same on every retry, so receivers can deduplicate. */
  id: string;
  /** The exact body bytes sent. */
  body: string;
  /** Unix seconds of this attempt. */
  timestampSec: number;
  /** HMAC key from `webhookKey`. */
  key: Uint8Array;
  /**
   * The key of the secret a rotation replaced, while its grace period lasts: `webhook-signature`
   * then carries its signature too, first, so a receiver still on the old secret verifies.
   */
  previousKey?: Uint8Array | null;
  userAgent: string;
  test?: boolean;
  /** A replay of a stored event: adds `X-Webhook-Replay: true`. */
  replay?: boolean;
};

/**
 * Every header of one webhook POST (docs/webhooks.md): the chainwatch signature over `<ts>.<body>` in
 * lower-case hex, and the Standard Webhooks headers over `<id>.<ts>.<body>` in base64, both keyed
 * with the same secret so either verifier works. During a rotation's grace period
 * `webhook-signature` lists the previous secret's signature and then the current one's,
 * space-separated as Standard Webhooks allows; `X-Signature` has room for one and uses the current.
 */
export function webhookHeaders(input: SignInput): Record<string, string> {
  const ts = String(input.timestampSec);
  // Bun's native HMAC, fed piece by piece (no copies of the body): two run on every attempt (three
  // in a grace period), and this is about half the cost of node:crypto's createHmac over
  // concatenated strings. Each starts as a copy of one hasher already keyed with the secret.
  const hmac = keyedHasher;
  const hex = hmac(input.key).update(ts).update(".").update(input.body).digest("hex");
  const standard = (key: Uint8Array) => `v1,${hmac(key).update(input.id).update(".").update(ts).update(".").update(input.body).digest("base64")}`;
  const signature = input.previousKey ? `${standard(input.previousKey)} ${standard(input.key)}` : standard(input.key);
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    "User-Agent": input.userAgent,
    "X-Timestamp": ts,
    "X-Signature": hex,
    "X-Webhook-Id": input.id,
    "webhook-id": input.id,
    "webhook-timestamp": ts,
    "webhook-signature": signature,
  };
  // Set, not spread into the literal: a spread makes every webhook's headers a slow-path copy.
  if (input.test) headers["X-Webhook-Test"] = "true";
  if (input.replay) headers["X-Webhook-Replay"] = "true";
  return headers;
}

/**
 * A fresh HMAC-SHA256 keyed with `key`: a copy of one hasher keyed once per key object (the
 * delivery loop keeps each endpoint's key as one object), which skips hashing the key's pads
 * again on every signature.
 */
function keyedHasher(key: Uint8Array): Bun.CryptoHasher {
  let keyed = keyedHashers.get(key);
  if (!keyed) keyedHashers.set(key, (keyed = new Bun.CryptoHasher("sha256", key)));
  return keyed.copy();
}

/** Keyed hashers by key object; a key no longer used (a rotated secret, a finished pass) takes its hasher with it. */
const keyedHashers = new WeakMap<Uint8Array, Bun.CryptoHasher>();
