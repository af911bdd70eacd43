import type { AuthFailure } from "../auth/verify.ts";

/** A client-facing failure: the HTTP edge turns it into `status` + `{"error": message}`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** The one code → status/message map of the signed API (DESIGN §3). */
export const AUTH_ERRORS: Record<AuthFailure, { status: number; message: string; headers?: Record<string, string> }> = {
  MISSING_API_KEY: { status: 401, message: "Missing X-Api-Key" },
  INVALID_API_KEY: { status: 401, message: "Invalid API key" },
  INVALID_TIMESTAMP: { status: 401, message: "Missing or invalid X-Timestamp" },
  MISSING_SIGNATURE: { status: 401, message: "Missing X-Signature" },
  INVALID_SIGNATURE: { status: 401, message: "Invalid signature" },
  IP_NOT_ALLOWED: { status: 403, message: "IP address not allowed." },
  RATE_LIMITED: { status: 429, message: "Rate limit exceeded.", headers: { "Retry-After": "1" } },
};

export const badRequest = (message: string) => new ApiError(400, message);
export const notFound = (message = "Not found.") => new ApiError(404, message);
export const invalidJson = () => new ApiError(400, "Invalid JSON body.");
export const tooLarge = (limit: number) => new ApiError(413, `Request body exceeds ${limit} bytes.`);
