/**
 * A request the daemon refused: `status` is the HTTP status, `error` the sentence of its
 * `{"error": "…"}` body (`Invalid API key`, `days must be an integer from 1 to 90`), and
 * `retryAfter` the seconds of its `Retry-After` header, when it sent one (a 429).
 */
export class ChainwatchError extends Error {
  override readonly name = "ChainwatchError";
  readonly status: number;
  readonly error: string;
  readonly retryAfter: number | null;
  readonly method: string;
  readonly path: string;

  constructor(init: { status: number; error: string; retryAfter?: number | null; method: string; path: string }) {
    super(`${init.method} ${init.path}: ${init.status} ${init.error}`);
    this.status = init.status;
    this.error = init.error;
    this.retryAfter = init.retryAfter ?? null;
    this.method = init.method;
    this.path = init.path;
  }
}

/** Why a webhook was refused. */
export type WebhookFailureReason =
  /** Neither signature scheme's headers are all there. */
  | "missing_headers"
  /** The timestamp is not Unix seconds. */
  | "invalid_timestamp"
  /** The timestamp is further from now than the tolerance (a replayed or delayed request). */
  | "stale_timestamp"
  /** No signature matches the body under the secret. */
  | "invalid_signature"
  /** The signature matches but the body is not a JSON object. */
  | "invalid_body";

/** A webhook that did not prove it came from chainwatch, or came too late; `reason` says which check failed. */
export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
  readonly reason: WebhookFailureReason;

  constructor(reason: WebhookFailureReason, message: string) {
    super(message);
    this.reason = reason;
  }
}
