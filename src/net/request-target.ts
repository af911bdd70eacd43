import type { RawQuery } from "../lib/query-params.ts";

/** How much of a request target that is not a URL goes into a log line. */
const MAX_RAW_TARGET = 200;

// Bun passes a request target through as `request.url` even when it is no URL: a CONNECT's
// authority form (`127.0.0.1:443`, `example.com:443`), or the bare path (`/v1/account?x=1`) when
// the Host header is no host (`Host: a b`). Code that answers any request reads the target
// through here and never throws on it; Elysia itself routes by slicing the string, so such
// requests do reach the handlers.

/** The request's URL, or null when its target is not an http(s) URL. */
export function requestUrl(request: Request): URL | null {
  const url = URL.parse(request.url);
  return url && (url.protocol === "http:" || url.protocol === "https:") ? url : null;
}

/** The path for a log line: the URL's path, else the raw target up to its query (cut short). */
export function requestPath(request: Request): string {
  return requestUrl(request)?.pathname ?? request.url.split("?")[0].slice(0, MAX_RAW_TARGET);
}

/** The query string's parameters, read from the raw target as Elysia reads its query. */
export function requestQuery(request: Request): URLSearchParams {
  const q = request.url.indexOf("?");
  return new URLSearchParams(q === -1 ? "" : request.url.slice(q + 1));
}

/** The query string with repeated keys kept as lists (src/lib/query-params.ts reads it). */
export function rawQuery(request: Request): RawQuery {
  const query: RawQuery = {};
  for (const [key, value] of requestQuery(request)) {
    const seen = query[key];
    query[key] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  return query;
}
