import { createHmac, timingSafeEqual } from "node:crypto";

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
  return createHmac("sha256", secret).update(message).digest("hex");
}

/** Constant-time equality of two strings; unequal lengths are unequal without comparing content. */
export function constantTimeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}
