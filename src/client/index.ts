// chainwatch's TypeScript client, imported as `chainwatch/client`. It needs nothing but `fetch`
// and Web Crypto (`crypto.subtle`), so it runs on Bun, Node 20+ and Deno; it imports nothing at
// run time from the daemon or from node_modules (test/client/self-contained.test.ts holds it to that).

export { type ChainwatchClient, type ClientOptions, createClient } from "./client.ts";
export { ChainwatchError, type WebhookFailureReason, WebhookVerificationError } from "./errors.ts";
export { canonicalRequest, hmacSha256Hex, sha256Hex, signRequest, type SignInput } from "./sign.ts";
export type { FetchLike } from "./transport.ts";
export type * from "./types.ts";
export { verifyWebhook, type VerifyWebhookOptions, type WebhookHeaders } from "./webhooks.ts";
