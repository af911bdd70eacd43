import type { ErrorCode, Failure } from "../lib/error-codes.ts";

type ErrorShape = { status: number; message: string; headers?: Record<string, string> };

/**
 * The one code → status map of the HTTP API, with each code's default message (docs/reference.md §3 for the
 * signed-API checks, in the order they run). A failure's own sentence replaces the message.
 */
export const ERRORS: Record<ErrorCode, ErrorShape> = {
  MISSING_API_KEY: { status: 401, message: "Missing X-Api-Key" },
  INVALID_API_KEY: { status: 401, message: "Invalid API key" },
  INVALID_TIMESTAMP: { status: 401, message: "Missing or invalid X-Timestamp" },
  MISSING_SIGNATURE: { status: 401, message: "Missing X-Signature" },
  INVALID_SIGNATURE: { status: 401, message: "Invalid signature" },
  IP_NOT_ALLOWED: { status: 403, message: "IP address not allowed." },
  RATE_LIMITED: { status: 429, message: "Rate limit exceeded.", headers: { "Retry-After": "1" } },
  INVALID_INGEST_TOKEN: { status: 401, message: "Invalid ingest token." },
  INVALID_JSON: { status: 400, message: "Invalid JSON body." },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: "Content-Type must be application/json." },
  BODY_TOO_LARGE: { status: 413, message: "Request body too large." },
  INVALID_INPUT: { status: 400, message: "Invalid request." },
  NOT_FOUND: { status: 404, message: "Not found." },
  // A known path asked with a method it does not answer, or a method no route answers (CONNECT,
  // TRACE); the Allow header, set per request, lists the path's methods.
  METHOD_NOT_ALLOWED: { status: 405, message: "Method not allowed." },
  WATCH_NOT_FOUND: { status: 404, message: "Watch not found." },
  PAYMENT_NOT_FOUND: { status: 404, message: "Payment not found." },
  KEY_NOT_FOUND: { status: 404, message: "API key not found." },
  DELIVERY_NOT_FOUND: { status: 404, message: "Delivery not found." },
  SLOT_LIMIT: { status: 403, message: "Address slot limit reached." },
  ORDER_EXISTS: { status: 409, message: "Order already exists." },
  ADDRESS_BUSY: { status: 409, message: "Address already has an active order." },
  // Where a delivery would go: a test needs a URL; a payment-order test, when the address-watch
  // webhook is off, the payments URL.
  NO_WEBHOOK_URL: { status: 400, message: "No webhook URL configured." },
  WEBHOOK_DISABLED: { status: 400, message: "Webhook is disabled and no payments webhook_url is set." },
  // A resend the delivery's state forbids; the sentence names the delivery.
  DELIVERY_SUCCEEDED: { status: 400, message: "Delivery already succeeded." },
  DELIVERY_HELD: { status: 400, message: "Delivery is held until its block has the account's min_confirmations." },
  // A batch that contradicts the stored chain beyond repair; the refusal's sentence says how.
  REORG_TOO_DEEP: { status: 409, message: "Reorg deeper than max_reorg_depth." },
  PARENT_MISMATCH: { status: 409, message: "Block does not connect to the stored chain." },
  INTERNAL: { status: 500, message: "Internal error." },
};

/** A failure on its way out of a route or plugin; the app's one error handler turns it into `status` + `{"error": message}`. */
export class ApiError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;
  constructor(
    readonly code: ErrorCode,
    message?: string,
    headers?: Record<string, string>,
  ) {
    super(message ?? ERRORS[code].message);
    this.status = ERRORS[code].status;
    this.headers = { ...ERRORS[code].headers, ...headers };
  }
}

/** The ApiError of a service's failure outcome. */
export const fromFailure = (f: Failure) => new ApiError(f.code, f.error);

export const badRequest = (message: string) => new ApiError("INVALID_INPUT", message);
export const notFound = () => new ApiError("NOT_FOUND");
/** 405 with the methods the path does answer (an empty Allow: the target answers none). */
export const methodNotAllowed = (allow: string[]) => new ApiError("METHOD_NOT_ALLOWED", undefined, { Allow: allow.join(", ") });
export const invalidJson = () => new ApiError("INVALID_JSON");
export const unsupportedMediaType = () => new ApiError("UNSUPPORTED_MEDIA_TYPE");
export const tooLarge = (limit: number) => new ApiError("BODY_TOO_LARGE", `Request body exceeds ${limit} bytes.`);
