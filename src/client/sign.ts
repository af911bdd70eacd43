import { buffer, toHex, utf8 } from "./bytes.ts";

// The signed-API contract (docs/api.md, "Signed requests"): X-Signature is the lower-case
// hex HMAC-SHA256, keyed with the UTF-8 bytes of the key's secret, of four lines joined by "\n":
// the Unix timestamp as sent, the upper-case method, the path without query string, and the
// lower-case hex SHA-256 of the body bytes as sent. Web Crypto only, so it runs anywhere.

/** What one signed request needs. */
export type SignInput = {
  apiKey: string;
  secret: string;
  method: string;
  /** The path from `/v1/…`, with or without a query string (the query is not signed). */
  path: string;
  /** The exact body bytes that will be sent; "" (or omitted) when there is none. */
  body?: string | Uint8Array;
  /** Unix seconds. */
  timestamp: number;
};

/** Lower-case hex SHA-256 of bytes (or of a string's UTF-8 bytes). */
export async function sha256Hex(data: string | Uint8Array): Promise<string> {
  return toHex(await crypto.subtle.digest("SHA-256", buffer(utf8(data))));
}

/** Lower-case hex HMAC-SHA256 of `message` keyed with `key` (a string means its UTF-8 bytes). */
export async function hmacSha256Hex(key: string | Uint8Array, message: string | Uint8Array): Promise<string> {
  const cryptoKey = await crypto.subtle.importKey("raw", buffer(utf8(key)), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return toHex(await crypto.subtle.sign("HMAC", cryptoKey, buffer(utf8(message))));
}

/** The string that is signed: timestamp, method, path (query dropped) and body hash, one a line. */
export function canonicalRequest(timestamp: number, method: string, path: string, bodySha256Hex: string): string {
  return `${timestamp}\n${method.toUpperCase()}\n${path.split("?", 1)[0]}\n${bodySha256Hex}`;
}

/** The three authentication headers of one request. Sign each attempt anew: the timestamp must be fresh. */
export async function signRequest(input: SignInput): Promise<{ "X-Api-Key": string; "X-Timestamp": string; "X-Signature": string }> {
  const bodyHash = await sha256Hex(input.body ?? "");
  const signature = await hmacSha256Hex(input.secret, canonicalRequest(input.timestamp, input.method, input.path, bodyHash));
  return { "X-Api-Key": input.apiKey, "X-Timestamp": String(input.timestamp), "X-Signature": signature };
}
