import type { OpenAPIV3 } from "openapi-types";
import type { SchemaName } from "./schemas.ts";

// Builders for the `responses` and `requestBody` of a route's OpenAPI `detail`. They name
// components by reference only (no import of the schemas), so route modules can use them without
// an import cycle; the document gets the components from ./document.ts.

const ref = (name: SchemaName) => ({ $ref: `#/components/schemas/${name}` });
const json = (name: SchemaName) => ({ "application/json": { schema: ref(name) } });

/** What each error status means on this API; every error body is `{"error": "…"}`. */
const ERRORS: Record<number, string> = {
  400: "Invalid JSON, a missing or invalid field or query parameter; the message names it",
  401: "Authentication failed: Missing X-Api-Key, Invalid API key, Missing or invalid X-Timestamp, Missing X-Signature or Invalid signature",
  403: "IP address not allowed. (the key's allowlist)",
  404: "Not found",
  409: "Conflict",
  413: "Request body over the size limit",
  415: "Content-Type must be application/json.",
  429: "Rate limit exceeded. (per key, sliding 1000 ms window)",
};

export type Success = Partial<Record<200 | 201 | 202, [SchemaName, string]>>;

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
