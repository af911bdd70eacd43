import { ChainwatchError } from "./errors.ts";
import { signRequest } from "./sign.ts";

/** The part of `fetch` the SDK uses; any WHATWG fetch (Bun, Node, Deno, undici, a test double) fits. */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export type TransportOptions = {
  /** Where the daemon listens, e.g. `http://127.0.0.1:8787` (a path prefix before `/v1` is kept). */
  baseUrl: string;
  /** The key's UUID (`X-Api-Key`). */
  apiKey: string;
  /** The key's 64-hex secret, shown once by `chainwatch keys create`. */
  secret: string;
  fetch?: FetchLike;
  /** Retries of a request answered 429, each after its `Retry-After`; default 2. */
  maxRetries?: number;
  /** The clock requests are signed with, in Unix milliseconds; default `Date.now`. */
  now?: () => number;
  /** How a retry waits; default a timer. Tests and schedulers may hand in their own. */
  sleep?: (ms: number) => Promise<void>;
};

export type Query = Record<string, string | number | undefined>;

/** One signed call: its method, its `/v1/…` path, an optional query and JSON body. */
export type Call = { method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE"; path: string; query?: Query; body?: unknown };

/** Seconds to wait when a 429 names no usable Retry-After: the daemon's own window is one second. */
const DEFAULT_RETRY_AFTER_SECONDS = 1;

/**
 * Sends signed requests and turns answers into values or ChainwatchErrors. A 429 is retried (the
 * daemon refused it before doing anything, so a retry cannot do the work twice), signed again with
 * a fresh timestamp, after the seconds its Retry-After names, at most `maxRetries` times. Nothing
 * else is retried: a POST that timed out may have been done.
 */
export function createTransport(options: TransportOptions) {
  const base = options.baseUrl.replace(/\/+$/, "");
  const doFetch: FetchLike = options.fetch ?? ((url, init) => fetch(url, init));
  const maxRetries = options.maxRetries ?? 2;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));

  return async function send<T>(call: Call): Promise<T> {
    const pathWithQuery = call.path + queryString(call.query);
    // Serialised once: the bytes signed are the bytes sent, on every attempt.
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    for (let attempt = 0; ; attempt++) {
      const auth = await signRequest({ apiKey: options.apiKey, secret: options.secret, method: call.method, path: call.path, body, timestamp: Math.floor(now() / 1000) });
      const headers: Record<string, string> = { Accept: "application/json", ...auth };
      if (body !== undefined) headers["Content-Type"] = "application/json";
      const res = await doFetch(base + pathWithQuery, { method: call.method, headers, body });
      const text = await res.text();
      if (res.ok) return (text === "" ? undefined : JSON.parse(text)) as T;
      const retryAfter = retryAfterSeconds(res.headers.get("retry-after"), now());
      if (res.status === 429 && attempt < maxRetries) {
        await sleep((retryAfter ?? DEFAULT_RETRY_AFTER_SECONDS) * 1000);
        continue;
      }
      throw new ChainwatchError({ status: res.status, error: errorMessage(res.status, text), retryAfter, method: call.method, path: call.path });
    }
  };
}

/** `?a=1&b=x` of the defined parameters, "" when there are none. */
function queryString(query: Query | undefined): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) params.append(k, String(v));
  const s = params.toString();
  return s === "" ? "" : `?${s}`;
}

/** The `error` of a `{"error": "…"}` body; a body of another shape (a proxy's page) is quoted, shortened. */
function errorMessage(status: number, text: string): string {
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === "object" && typeof (parsed as { error?: unknown }).error === "string") return (parsed as { error: string }).error;
  } catch {
    // Not JSON: fall through to the text itself.
  }
  return text.trim() === "" ? `HTTP ${status}` : text.trim().slice(0, 200);
}

/** Retry-After as seconds: delta-seconds, or an HTTP date from now; null when absent or unreadable. */
export function retryAfterSeconds(header: string | null, nowMs: number): number | null {
  if (header === null) return null;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value);
  // An HTTP date always ends in GMT; anything else Date.parse might still read ("-1") is refused.
  const at = value.endsWith("GMT") ? Date.parse(value) : Number.NaN;
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - nowMs) / 1000));
}
