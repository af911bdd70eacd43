import type { ErrorCode, Failure } from "./error-codes.ts";

/** How an edge answers a code: its HTTP status, its default message and any headers it always carries. */
export type FailureShape = { status: number; message: string; headers?: Record<string, string> };

/**
 * The one code → status + message table, read by every edge: the HTTP API answers
 * `status` + `{"error": message}`, the cabinet shows the message on the page with the same status,
 * the CLI prints it. The signed-API checks come first, in the order they run (docs/api.md).
 * A failure's own sentence (`error`) replaces the message.
 */
export const FAILURES: Record<ErrorCode, FailureShape> = {
  MISSING_API_KEY: { status: 401, message: "Missing X-Api-Key" },
  INVALID_API_KEY: { status: 401, message: "Invalid API key" },
  INVALID_TIMESTAMP: { status: 401, message: "Missing or invalid X-Timestamp" },
  MISSING_SIGNATURE: { status: 401, message: "Missing X-Signature" },
  INVALID_SIGNATURE: { status: 401, message: "Invalid signature" },
  IP_NOT_ALLOWED: { status: 403, message: "IP address not allowed." },
  // An operator disabled the account (`chainwatch accounts disable`): its keys, /rpc and cabinet
  // are refused until it is enabled again; nothing of it is removed.
  ACCOUNT_DISABLED: { status: 403, message: "This account is disabled." },
  RATE_LIMITED: { status: 429, message: "Rate limit exceeded.", headers: { "Retry-After": "1" } },
  INVALID_INGEST_TOKEN: { status: 401, message: "Invalid ingest token." },
  INVALID_JSON: { status: 400, message: "Invalid JSON body." },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: "Content-Type must be application/json." },
  BODY_TOO_LARGE: { status: 413, message: "Request body too large." },
  INVALID_INPUT: { status: 400, message: "Invalid request." },
  // A refused webhook or provider URL is a field error too; the sentence names the field.
  NOT_ABSOLUTE_HTTP: { status: 400, message: "URL must be an absolute http(s) URL." },
  HAS_CREDENTIALS: { status: 400, message: "URL must not contain credentials." },
  PRIVATE_ADDRESS: { status: 400, message: "URL resolves to a private address." },
  UNRESOLVABLE: { status: 400, message: "URL host could not be resolved." },
  NOT_FOUND: { status: 404, message: "Not found." },
  // A known path asked with a method it does not answer, or a method no route answers (CONNECT,
  // TRACE); the Allow header, set per request, lists the path's methods. On /rpc: a JSON-RPC
  // method off the allow-list, which that endpoint answers in its own terms (src/rpc/jsonrpc.ts).
  METHOD_NOT_ALLOWED: { status: 405, message: "Method not allowed." },
  WATCH_NOT_FOUND: { status: 404, message: "Watch not found." },
  PAYMENT_NOT_FOUND: { status: 404, message: "Payment not found." },
  KEY_NOT_FOUND: { status: 404, message: "API key not found." },
  DELIVERY_NOT_FOUND: { status: 404, message: "Delivery not found." },
  PLAN_NOT_FOUND: { status: 404, message: "Plan not found." },
  ACCOUNT_EXISTS: { status: 409, message: "Account already exists." },
  // Only the operator's CLI names an account (by name or id); the sentence says which was asked for.
  ACCOUNT_NOT_FOUND: { status: 404, message: "Account not found." },
  // An account purge that would remove orders a payer may still pay (`accounts delete --purge` without --force).
  ACCOUNT_HAS_OPEN_ORDERS: { status: 409, message: "The account has open payment orders." },
  SLOT_LIMIT: { status: 403, message: "Address slot limit reached." },
  ORDER_EXISTS: { status: 409, message: "Order already exists." },
  ADDRESS_BUSY: { status: 409, message: "Address already has an active order." },
  // A payment wallet's address stays its order's for good (late payments keep arriving there).
  ADDRESS_DERIVED: { status: 409, message: "Address belongs to an order of a payment wallet; it is never used for another order." },
  WALLET_NOT_FOUND: { status: 404, message: "Wallet not found." },
  // 2^31 indices: what BIP 32 can derive from a public key.
  WALLET_EXHAUSTED: { status: 409, message: "Payment wallet has handed out every index it can derive; put a new key." },
  // Where a delivery would go: a test needs a URL; a payment-order test, when the default
  // endpoint is off, the payments URL.
  NO_WEBHOOK_URL: { status: 400, message: "No webhook URL configured." },
  WEBHOOK_DISABLED: { status: 400, message: "Webhook is disabled and no payments webhook_url is set." },
  // Webhook endpoints: another account's id is not found; the plan's max_endpoints; an account
  // always keeps one (its default, whose secret signs the payments URL too).
  ENDPOINT_NOT_FOUND: { status: 404, message: "Endpoint not found." },
  ENDPOINT_LIMIT: { status: 403, message: "Endpoint limit reached." },
  LAST_ENDPOINT: { status: 409, message: "An account keeps at least one webhook endpoint; disable it instead." },
  // A resend the delivery's state forbids; the sentence names the delivery.
  DELIVERY_SUCCEEDED: { status: 400, message: "Delivery already succeeded." },
  DELIVERY_HELD: { status: 400, message: "Delivery is held until its block has the account's min_confirmations." },
  // An events replay the account's replay backlog or balance cannot take now: nothing was queued.
  REPLAY_BACKLOG_FULL: { status: 429, message: "Replay backlog full; wait for it to drain." },
  INSUFFICIENT_CREDITS: { status: 402, message: "Insufficient credits." },
  SIGN_IN_LINK_INVALID: { status: 410, message: "This sign-in link is invalid, already used or expired." },
  // The cabinet's own refusals: a sign-in post that did not come from the cabinet's sign-in page, a
  // client that failed too many sign-in links lately (the sentence adds how long it waits, and the
  // page's Retry-After says the same, so no fixed header here), a page asked without a live
  // session, a form post without the session's CSRF token.
  SIGN_IN_CROSS_SITE: { status: 403, message: "A sign-in must be confirmed on the sign-in page of this cabinet." },
  SIGN_IN_THROTTLED: { status: 429, message: "Too many sign-in links that did not work came from your address." },
  NOT_SIGNED_IN: { status: 401, message: "Not signed in." },
  CSRF_INVALID: { status: 403, message: "Missing or invalid CSRF token. Reload the page and try again." },
  // A batch that contradicts the stored chain beyond repair; the refusal's sentence says how.
  REORG_TOO_DEEP: { status: 409, message: "Reorg deeper than max_reorg_depth." },
  PARENT_MISMATCH: { status: 409, message: "Block does not connect to the stored chain." },
  BLOCK_HEIGHT_MISMATCH: { status: 409, message: "Block is stored at another height." },
  // Services chainwatch calls: a chain node, the AML provider. The sentence says what went wrong.
  UPSTREAM_UNAVAILABLE: { status: 502, message: "Upstream unavailable." },
  UPSTREAM_ANSWER_TOO_LARGE: { status: 502, message: "Upstream answer too large." },
  // A chain follower's own (follow status shows the sentence): a node's answers that cannot be
  // believed, and the reorg brake holding a network (max_reorgs_per_minute).
  UPSTREAM_MALFORMED: { status: 502, message: "Upstream answer malformed." },
  FOLLOWER_PAUSED: { status: 503, message: "Follower paused by the reorg brake." },
  AML_UNAVAILABLE: { status: 502, message: "AML provider unavailable." },
  // The database is restarting, stalled or unreachable (src/db/availability.ts): nothing of the
  // request was stored; the same request succeeds once it is back.
  DATABASE_UNAVAILABLE: { status: 503, message: "Database unavailable; try again shortly.", headers: { "Retry-After": "1" } },
  // The transaction met another write and PostgreSQL ended it (a deadlock, src/db/write-conflict.ts):
  // nothing of the request was stored; the same request succeeds when sent again.
  DATABASE_CONFLICT: { status: 503, message: "Database conflict: nothing was written; try again.", headers: { "Retry-After": "1" } },
  // The database's disk is full: the request's writes were rolled back whole; the same request
  // succeeds once space is freed (src/db/storage-full.ts).
  STORAGE_FULL: { status: 503, message: "Database storage full: nothing was written; retry once space is freed." },
  INTERNAL: { status: 500, message: "Internal error." },
};

/** The sentence a failure is told with: its own, else its code's. */
export function failureMessage(f: Failure): string {
  return f.error ?? FAILURES[f.code].message;
}

/** The HTTP status of a failure's code. */
export function failureStatus(f: Failure): number {
  return FAILURES[f.code].status;
}

/** The refusal of a body over `limit` bytes, as both edges word it. */
export function bodyTooLarge(limit: number): Failure<"BODY_TOO_LARGE"> {
  return { ok: false, code: "BODY_TOO_LARGE", error: `Request body exceeds ${limit} bytes.` };
}

/**
 * A failure thrown where a framework hook can only throw (a body parser), or from deep inside a
 * request's handling to its edge's one error handler, which answers it by its code. Use cases never
 * throw it: they return the Failure.
 */
export class FailureError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;
  constructor(
    readonly code: ErrorCode,
    message?: string,
    headers?: Record<string, string>,
  ) {
    super(message ?? FAILURES[code].message);
    this.status = FAILURES[code].status;
    this.headers = { ...FAILURES[code].headers, ...headers };
  }
}

/** The FailureError of a failure value. */
export const fromFailure = (f: Failure) => new FailureError(f.code, f.error);
