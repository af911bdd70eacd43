import type { AuthFailure } from "../auth/verify.ts";

/**
 * Every failure a client can be told about, as one closed set. Services return outcomes carrying
 * one of these codes; only the HTTP edge turns a code into a status and a body, through the one
 * map in src/http/errors.ts. Adding a code without a row there does not compile.
 */
export type ErrorCode =
  | AuthFailure
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
  | "SLOT_LIMIT"
  | "ORDER_EXISTS"
  | "ADDRESS_BUSY"
  | "NO_WEBHOOK_URL"
  | "WEBHOOK_DISABLED"
  | "DELIVERY_SUCCEEDED"
  | "DELIVERY_HELD"
  | "REORG_TOO_DEEP"
  | "PARENT_MISMATCH"
  | "INTERNAL";

/**
 * An expected failure as a value. `error` is the client-facing sentence when the code's own is not
 * enough: for INVALID_INPUT it names the field (`days must be an integer from 1 to 90`).
 */
export type Failure<C extends ErrorCode = ErrorCode> = { ok: false; code: C; error?: string };

/** A failure whose sentence is always there (a field error, a refusal naming its record). */
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
