const SECRET_PREFIX = "whsec_";

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
  userAgent: string;
  test?: boolean;
  /** A replay of a stored event: adds `X-Webhook-Replay: true`. */
  replay?: boolean;
};

/**
 * Every header of one webhook POST (docs/reference.md §5): the chainwatch signature over `<ts>.<body>` in
 * lower-case hex, and the Standard Webhooks headers over `<id>.<ts>.<body>` in base64, both keyed
 * with the same secret so either verifier works.
 */
export function webhookHeaders(input: SignInput): Record<string, string> {
  const ts = String(input.timestampSec);
  // Bun's native HMAC, fed piece by piece (no copies of the body): two run on every attempt, and
  // this is about half the cost of node:crypto's createHmac over concatenated strings.
  const hmac = () => new Bun.CryptoHasher("sha256", input.key);
  const hex = hmac().update(ts).update(".").update(input.body).digest("hex");
  const b64 = hmac().update(input.id).update(".").update(ts).update(".").update(input.body).digest("base64");
  return {
    "Content-Type": "application/json",
    "User-Agent": input.userAgent,
    "X-Timestamp": ts,
    "X-Signature": hex,
    "X-Webhook-Id": input.id,
    "webhook-id": input.id,
    "webhook-timestamp": ts,
    "webhook-signature": `v1,${b64}`,
    ...(input.test ? { "X-Webhook-Test": "true" } : {}),
    ...(input.replay ? { "X-Webhook-Replay": "true" } : {}),
  };
}
