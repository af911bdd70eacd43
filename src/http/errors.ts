import { isDatabaseUnavailable } from "../db/availability.ts";
import { isStorageFull } from "../db/storage-full.ts";
import { bodyTooLarge, FailureError, fromFailure } from "../lib/failures.ts";

// The HTTP edge's refusals. Every one is a FailureError: the app's one error handler answers it
// with its code's status (src/lib/failures.ts) and `{"error": message}`.

export { FailureError, fromFailure };

export const badRequest = (message: string) => new FailureError("INVALID_INPUT", message);
export const notFound = () => new FailureError("NOT_FOUND");
/** 405 with the methods the path does answer (an empty Allow: the target answers none). */
export const methodNotAllowed = (allow: string[]) => new FailureError("METHOD_NOT_ALLOWED", undefined, { Allow: allow.join(", ") });
export const invalidJson = () => new FailureError("INVALID_JSON");
export const unsupportedMediaType = () => new FailureError("UNSUPPORTED_MEDIA_TYPE");
export const tooLarge = (limit: number) => fromFailure(bodyTooLarge(limit));

/**
 * The refusal a thrown error stands for: a FailureError itself, a full disk (507) or an unreachable
 * database (503); null for anything else, which is a bug the caller logs and answers as a 500.
 */
export function knownFailure(error: unknown): FailureError | null {
  if (error instanceof FailureError) return error;
  if (isStorageFull(error)) return new FailureError("STORAGE_FULL");
  if (isDatabaseUnavailable(error)) return new FailureError("DATABASE_UNAVAILABLE");
  return null;
}
