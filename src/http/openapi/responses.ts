import type { OpenAPIV3 } from "openapi-types";
import type { ErrorCode } from "../../lib/error-codes.ts";
import { FAILURES } from "../../lib/failures.ts";
import type { SchemaName } from "./schemas.ts";

// Builders for the `responses` and `requestBody` of a route's OpenAPI `detail`. They name
// components by reference only (no import of the schemas), so route modules can use them without
// an import cycle; the document gets the components from ./document.ts. Error descriptions quote
// the failure table (src/lib/failures.ts), so the document says what the API answers.

const ref = (name: SchemaName) => ({ $ref: `#/components/schemas/${name}` });
const json = (name: SchemaName) => ({ "application/json": { schema: ref(name) } });

/** The message a code is answered with, for a route's error description. */
export const says = (code: ErrorCode) => FAILURES[code].message;

/** The messages of several codes, as a reader lists them: `a, b or c`. */
const either = (...codes: ErrorCode[]) => {
  const messages = codes.map(says);
  return messages.length < 2 ? messages.join("") : `${messages.slice(0, -1).join(", ")} or ${messages[messages.length - 1]}`;
};

/** What each error status means on this API; every error body is `{"error": "…"}`. */
const ERRORS: Record<number, string> = {
  400: "Invalid JSON, a missing or invalid field or query parameter; the message names it",
  401: `Authentication failed: ${either("MISSING_API_KEY", "INVALID_API_KEY", "INVALID_TIMESTAMP", "MISSING_SIGNATURE", "INVALID_SIGNATURE")}`,
  403: `${says("IP_NOT_ALLOWED")} (the key's allowlist) or ${says("ACCOUNT_DISABLED")} (an operator disabled the key's account)`,
  404: "Not found",
  409: "Conflict",
  413: "Request body over the size limit",
  415: says("UNSUPPORTED_MEDIA_TYPE"),
  429: `${says("RATE_LIMITED")} (per key, sliding 1000 ms window)`,
};

export type Success = Partial<Record<200 | 201 | 202 | 503, [SchemaName, string]>>;

/** An error response with its meaning; 429 documents Retry-After. */
function errorResponse(status: number, description = ERRORS[status]): OpenAPIV3.ResponseObject {
  const headers = status === 429 ? { headers: { "Retry-After": { schema: { type: "integer" as const }, description: "Seconds to wait: 1" } } } : {};
  return { description, ...headers, content: json("Error") };
}

/**
 * The responses of a route: its successes, then errors (a status, or [status, meaning] where the
 * route gives it a specific one). Signed routes add the authentication errors themselves.
 */
export function responses(success: Success, errors: (number | [number, string])[] = [], opts: { signed?: boolean } = { signed: true }): OpenAPIV3.ResponsesObject {
  const out: OpenAPIV3.ResponsesObject = {};
  for (const [status, [name, description]] of Object.entries(success) as [string, [SchemaName, string]][]) {
    out[status] = { description, content: json(name) };
  }
  const all = [...errors, ...(opts.signed === false ? [] : [401, 403, 429])];
  for (const e of all) {
    const [status, description] = typeof e === "number" ? [e, undefined] : e;
    if (!(String(status) in out)) out[String(status)] = errorResponse(status, description);
  }
  return out;
}

/** A required JSON request body by schema name. */
export function jsonRequest(name: SchemaName) {
  return { required: true, content: json(name) };
}

/** The operation-level `security` of a route that takes no API key (health, metrics, ingest). */
export const UNSIGNED: Record<string, string[]>[] = [];
