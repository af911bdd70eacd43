/** Every way a signed request can be refused, in the order the checks run (docs/api.md). */
export type AuthFailure =
  | "MISSING_API_KEY"
  | "INVALID_API_KEY"
  | "INVALID_TIMESTAMP"
  | "MISSING_SIGNATURE"
  | "INVALID_SIGNATURE"
  | "IP_NOT_ALLOWED"
  | "ACCOUNT_DISABLED"
  | "RATE_LIMITED";

/** Every way a webhook or provider URL is refused (src/net/target-guard.ts). */
export type TargetRefusal = "NOT_ABSOLUTE_HTTP" | "HAS_CREDENTIALS" | "PRIVATE_ADDRESS" | "UNRESOLVABLE";

/**
 * Every failure a client can be told about, as one closed set. Use cases return outcomes carrying
 * one of these codes; only an edge (the HTTP API, the cabinet, the CLI, the JSON-RPC endpoint)
 * turns a code into an answer, through the one table in src/lib/failures.ts. Adding a code
 * without a row there does not compile.
 */
export type ErrorCode =
  | AuthFailure
  | TargetRefusal
  | "INVALID_INGEST_TOKEN"
  | "INVALID_JSON"
  | "UNSUPPORTED_MEDIA_TYPE"
  | "BODY_TOO_LARGE"
  | "INVALID_INPUT"
  | "NOT_FOUND"
  | "METHOD_NOT_ALLOWED"
  | "WATCH_NOT_FOUND"
  | "PAYMENT_NOT_FOUND"
  | "KEY_NOT_FOUND"
  | "DELIVERY_NOT_FOUND"
  | "PLAN_NOT_FOUND"
  | "ACCOUNT_EXISTS"
  | "ACCOUNT_NOT_FOUND"
  | "ACCOUNT_HAS_OPEN_ORDERS"
  | "SLOT_LIMIT"
  | "ORDER_EXISTS"
  | "ADDRESS_BUSY"
  | "ADDRESS_DERIVED"
  | "WALLET_NOT_FOUND"
  | "WALLET_EXHAUSTED"
  | "NO_WEBHOOK_URL"
  | "WEBHOOK_DISABLED"
  | "ENDPOINT_NOT_FOUND"
  | "ENDPOINT_LIMIT"
  | "LAST_ENDPOINT"
  | "DELIVERY_SUCCEEDED"
  | "DELIVERY_HELD"
  | "REPLAY_BACKLOG_FULL"
  | "INSUFFICIENT_CREDITS"
  | "SIGN_IN_LINK_INVALID"
  | "SIGN_IN_CROSS_SITE"
  | "SIGN_IN_THROTTLED"
  | "NOT_SIGNED_IN"
  | "CSRF_INVALID"
  | "REORG_TOO_DEEP"
  | "PARENT_MISMATCH"
  | "BLOCK_HEIGHT_MISMATCH"
  | "UPSTREAM_UNAVAILABLE"
  | "UPSTREAM_ANSWER_TOO_LARGE"
  | "UPSTREAM_MALFORMED"
  | "FOLLOWER_PAUSED"
  | "AML_UNAVAILABLE"
  | "DATABASE_UNAVAILABLE"
  | "DATABASE_CONFLICT"
  | "STORAGE_FULL"
  | "INTERNAL";

/**
 * An expected failure as a value: the one shape of every refusal outside the edges. `error` is the
 * sentence when the code's own is not enough: for INVALID_INPUT it names the field
 * (`days must be an integer from 1 to 90`).
 */
export type Failure<C extends ErrorCode = ErrorCode> = { ok: false; code: C; error?: string };

/** A failure whose sentence is always there (a field error, an upstream's answer). */
export type Explained<C extends ErrorCode = ErrorCode> = Failure<C> & { error: string };

/** A failure of the input itself, always with the sentence naming the field. */
export type InvalidInput = Explained<"INVALID_INPUT">;

/**
 * What a use case returns: its own fields beside `ok: true`, or one of its failures
 * (`Result<{ order: Payment }, Failure<"ORDER_EXISTS">>`).
 */
export type Result<T extends object = object, F extends { ok: false } = Failure> = ({ ok: true } & T) | F;

/** A failure with the code's own message, or with `error` in its place. */
export function fail<C extends ErrorCode>(code: C, error?: string): Failure<C> {
  return error === undefined ? { ok: false, code } : { ok: false, code, error };
}

/** An INVALID_INPUT failure whose sentence names the field. */
export function invalidInput(error: string): InvalidInput {
  return { ok: false, code: "INVALID_INPUT", error };
}

/** Whether a parsed value is a failure instead (for parsers that return the value itself or a Failure). */
export function isFailure(value: unknown): value is Failure {
  return typeof value === "object" && value !== null && (value as { ok?: unknown }).ok === false && "code" in value;
}

/**
 * Why the daemon or an admin command cannot go on: a bad config, a missing master key, a database
 * newer than this binary, a backup that cannot be written. Never a client's mistake, so it has no
 * status: the CLI prints `error` on one line and exits 1, `serve` stops before it listens.
 */
export type StartupFailure = { ok: false; code: "STARTUP"; error: string };

/** A start-up failure with its one-line reason. */
export function startupFailure(error: string): StartupFailure {
  return { ok: false, code: "STARTUP", error };
}
