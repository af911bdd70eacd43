/** JSON-RPC 2.0 framing for /rpc: parsing a body into calls and writing error objects. Pure. */
import { type InvalidInput, invalidInput, type Result } from "../lib/error-codes.ts";
import { jsonNestsDeeperThan, MAX_JSON_DEPTH } from "../lib/json-depth.ts";

export type JsonRpcId = string | number | null;

/**
 * A well-formed call: its four members as parsed (`params` undefined when absent), which is all
 * that is forwarded (forwardedCall). A call without an `id` member is a notification: it is
 * carried out but never answered (`id: null` is a call like any other).
 */
export type RpcCall = { id: JsonRpcId; method: string; notification: boolean; params: unknown };

/** One element of a request: a call, or why it is not one (answered with -32600 and its id, when it has a usable one). */
export type RpcEntry = Result<{ call: RpcCall }, InvalidInput & { id: JsonRpcId }>;

export type ParsedRpcBody =
  | { kind: "invalid-json" }
  | { kind: "too-deep" }
  | { kind: "single"; entry: RpcEntry }
  | { kind: "batch"; entries: RpcEntry[] };

/**
 * The error codes of docs/rpc.md, plus the standard ones of the JSON-RPC 2.0 specification.
 * chainwatch's own stay out of EIP-1474's -32000…-32006, which wallet libraries read as the node's
 * (viem calls -32004 "Method is not supported"); -32005 means "limit exceeded" there too.
 */
export const RPC_ERRORS = {
  INVALID_API_KEY: { status: 401, code: -32010, message: "Invalid API key" },
  IP_NOT_ALLOWED: { status: 403, code: -32011, message: "IP address not allowed." },
  ACCOUNT_DISABLED: { status: 403, code: -32014, message: "This account is disabled." },
  UNKNOWN_NETWORK: { status: 404, code: -32012, message: "Unknown network" },
  INSUFFICIENT_CREDITS: { status: 402, code: -32013, message: "Insufficient credits." },
  RATE_LIMITED: { status: 429, code: -32005, message: "Rate limit exceeded." },
  METHOD_NOT_ALLOWED: { status: 200, code: -32601, message: "Method not allowed" },
  PARSE_ERROR: { status: 400, code: -32700, message: "Parse error: the body is not valid JSON." },
  INVALID_REQUEST: { status: 400, code: -32600, message: "Invalid request" },
  UPSTREAM_UNAVAILABLE: { status: 502, code: -32603, message: "Upstream unavailable." },
} as const;

/** Most calls one request may carry. */
export const MAX_BATCH = 100;

/** The -32600 message of a body nesting deeper than MAX_JSON_DEPTH. */
export const TOO_DEEP_MESSAGE = `Invalid request: JSON nested deeper than ${MAX_JSON_DEPTH} levels.`;

/**
 * Parses a request body; never throws. A body nesting deeper than MAX_JSON_DEPTH is refused before
 * JSON.parse sees it (which would build every level first). Each batch element is judged on its
 * own, as the specification asks.
 */
export function parseRpcBody(text: string): ParsedRpcBody {
  if (jsonNestsDeeperThan(text)) return { kind: "too-deep" };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: "invalid-json" };
  }
  if (Array.isArray(value)) return { kind: "batch", entries: value.map(parseEntry) };
  return { kind: "single", entry: parseEntry(value) };
}

function parseEntry(value: unknown): RpcEntry {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return invalid(null, "a call must be a JSON object");
  const raw = value as Record<string, unknown>;
  const idOk = raw.id === undefined || raw.id === null || typeof raw.id === "string" || (typeof raw.id === "number" && Number.isFinite(raw.id));
  const id = idOk ? ((raw.id ?? null) as JsonRpcId) : null;
  if (!idOk) return invalid(null, "id must be a string, a number or null");
  // Only the four members are forwarded (forwardedCall), and any other is refused rather than
  // dropped: nodes written in Go match member names regardless of case, the last one winning, so
  // `"METHOD": "eth_sendTransaction"` beside an allowed `method` is what geth would run. A
  // `__proto__` member is an own property of what JSON.parse returns, and refused the same way.
  for (const member in raw) {
    if (member !== "jsonrpc" && member !== "id" && member !== "method" && member !== "params") {
      return invalid(id, `a call has no member other than jsonrpc, id, method and params (${quoted(member)})`);
    }
  }
  if (raw.jsonrpc !== "2.0") return invalid(id, 'jsonrpc must be "2.0"');
  if (typeof raw.method !== "string" || raw.method === "") return invalid(id, "method must be a non-empty string");
  if (raw.params !== undefined && (typeof raw.params !== "object" || raw.params === null)) return invalid(id, "params must be an array or an object");
  return { ok: true, call: { id, method: raw.method, notification: !("id" in raw), params: raw.params } };
}

/** A client's member name as an error quotes it: JSON-escaped, cut to 40 characters. */
function quoted(name: string): string {
  return JSON.stringify(name.length > 40 ? `${name.slice(0, 39)}…` : name);
}

/**
 * A call as it goes upstream: a new object of the members the policy judged, never the client's
 * bytes, so the node reads one `method`, the one allowed. A notification stays one (no `id`).
 */
export function forwardedCall(call: RpcCall): string {
  // Written out rather than JSON.stringify of a new object: half the CPU, on every call /rpc forwards.
  const id = call.notification ? "" : `"id":${JSON.stringify(call.id)},`;
  const params = call.params === undefined ? "" : `,"params":${JSON.stringify(call.params)}`;
  return `{"jsonrpc":"2.0",${id}"method":${JSON.stringify(call.method)}${params}}`;
}

function invalid(id: JsonRpcId, reason: string): RpcEntry {
  return { ...invalidInput(`Invalid request: ${reason}.`), id };
}

/** The id an answer to this entry carries. */
export function entryId(entry: RpcEntry): JsonRpcId {
  return entry.ok ? entry.call.id : entry.id;
}

/** One JSON-RPC error response object, serialized. */
export function errorObject(id: JsonRpcId, code: number, message: string): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"error":{"code":${code},"message":${JSON.stringify(message)}}}`;
}

/** One JSON-RPC result response object, serialized; `resultJson` is already JSON text. */
export function resultObject(id: JsonRpcId, resultJson: string): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${resultJson}}`;
}

/** The largest body (in characters) a refusal made before the body is parsed reads its id from. */
export const MAX_ID_BODY_LENGTH = 4096;

/**
 * The id a whole-request error carries, read from the body as sent: a single call's id, else null.
 * Such a refusal is made before the key is known, so what it reads is bounded: only a body of at
 * most MAX_ID_BODY_LENGTH characters, nesting no deeper than MAX_JSON_DEPTH, is parsed for its id;
 * a larger or deeper one answers id null. A batch is not parsed at all (its first character tells
 * it apart): a stranger gets one small answer, never one per element of whatever was sent.
 */
export function requestId(body: string): JsonRpcId {
  if (body.length > MAX_ID_BODY_LENGTH) return null;
  const first = body.trimStart()[0];
  if (first !== "{") return null;
  const parsed = parseRpcBody(body);
  return parsed.kind === "single" ? entryId(parsed.entry) : null;
}
