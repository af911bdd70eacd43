import { isDatabaseUnavailable } from "../db/availability.ts";
import { isStorageFull } from "../db/storage-full.ts";
import { isUnstorableText } from "../db/unstorable-text.ts";
import { isWriteConflict } from "../db/write-conflict.ts";
import { bodyTooLarge, FailureError, fromFailure } from "../lib/failures.ts";
import { NO_NUL } from "../lib/nul-text.ts";
import type { Logger } from "../lib/log.ts";
import { loggablePath } from "./log-path.ts";

// The HTTP edge's refusals. Every one is a FailureError: the app's one error handler answers it
// with its code's status (src/lib/failures.ts) and `{"error": message}`.

export { FailureError, fromFailure };

export const badRequest = (message: string) => new FailureError("INVALID_INPUT", message);
/** Refuses a URL holding `%00`, the NUL character no stored text may hold (src/lib/nul-text.ts). */
export function refuseNulInUrl(request: Request): void {
  if (request.url.includes("%00")) throw badRequest(`The URL ${NO_NUL}: %00`);
}
export const notFound = () => new FailureError("NOT_FOUND");
/** 405 with the methods the path does answer (an empty Allow: the target answers none). */
export const methodNotAllowed = (allow: string[]) => new FailureError("METHOD_NOT_ALLOWED", undefined, { Allow: allow.join(", ") });
export const invalidJson = () => new FailureError("INVALID_JSON");
export const unsupportedMediaType = () => new FailureError("UNSUPPORTED_MEDIA_TYPE");
export const tooLarge = (limit: number) => fromFailure(bodyTooLarge(limit));

/**
 * The refusal a thrown error stands for: a FailureError itself, a full disk, an unreachable
 * database or a transaction ended for conflicting with another (503), a text value the database
 * cannot store (400); else null.
 */
function knownFailure(error: unknown): FailureError | null {
  if (error instanceof FailureError) return error;
  if (isUnstorableText(error)) return badRequest(`A text value ${NO_NUL}.`);
  if (isStorageFull(error)) return new FailureError("STORAGE_FULL");
  if (isDatabaseUnavailable(error)) return new FailureError("DATABASE_UNAVAILABLE");
  if (isWriteConflict(error)) return new FailureError("DATABASE_CONFLICT");
  return null;
}

/**
 * What a request that threw is answered with, logged as every answer of the edge is: a known
 * refusal, else what `framework` makes of the error (Elysia's own not-found, parse and validation
 * failures), else a bug: logged at error and answered 500 `Internal error.`. Every refusal (4xx) is
 * logged at debug: useful while wiring a client, noise otherwise; a conflicting write at warn. One path for Elysia's error hook
 * and the routes Bun's server answers itself (native-routes.ts).
 */
export function refusalFor(error: unknown, request: Request, log: Logger, framework: () => FailureError | null = () => null): FailureError {
  let failure = knownFailure(error) ?? framework();
  if (!failure) {
    log.error("unhandled error", { path: loggablePath(request), error: String(error) });
    failure = new FailureError("INTERNAL");
  } else if (failure.code === "DATABASE_CONFLICT") {
    // Answered, and still worth a look: two writes took their locks in opposite orders.
    log.warn("request met a conflicting write and stored nothing", { path: loggablePath(request), error: String(error) });
  }
  if (failure.status < 500) log.debug("request refused", { method: request.method, path: loggablePath(request), status: failure.status, error: failure.message });
  return failure;
}
