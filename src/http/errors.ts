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
