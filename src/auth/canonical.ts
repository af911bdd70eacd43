/** Lower-case hex SHA-256 of the raw body bytes (of "" when there is no body). */
export function sha256Hex(body: Uint8Array | string): string {
  return new Bun.CryptoHasher("sha256").update(body).digest("hex");
}

/** The four signed lines, joined by "\n" with no trailing newline (docs/api.md). */
export function canonicalString(timestamp: string, method: string, path: string, bodySha256Hex: string): string {
  return `${timestamp}\n${method.toUpperCase()}\n${path}\n${bodySha256Hex}`;
}

/** Lower-case hex HMAC-SHA256 keyed with the UTF-8 bytes of `secret`. */
export function hmacSha256Hex(secret: string | Uint8Array, message: string): string {
  return new Bun.CryptoHasher("sha256", secret).update(message).digest("hex");
}

/** The HMAC-SHA256 bytes of `message` keyed with the UTF-8 bytes of `secret` (the hot path: no hex round trip). */
export function hmacSha256(secret: string | Uint8Array, message: string): Uint8Array {
  return new Bun.CryptoHasher("sha256", secret).update(message).digest();
}

const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;

/**
 * Whether `hex` (either case) spells exactly the 32 bytes of `expected`, compared in constant
 * time. Anything but 64 hex digits is unequal without comparing content, as an unequal length is.
 */
export function hexMatches(hex: string, expected: Uint8Array): boolean {
  return HEX_SHA256.test(hex) && expected.length === 32 && crypto.timingSafeEqual(Buffer.from(hex, "hex"), expected);
}

/** Constant-time equality of two strings; unequal lengths are unequal without comparing content. */
export function constantTimeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && crypto.timingSafeEqual(ab, bb);
}
