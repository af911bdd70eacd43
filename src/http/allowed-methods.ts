/** A route as the app lists it: `GET /v1/payments/:payment_id`. */
export type RouteEntry = { method: string; path: string };

/** Which methods the API answers, per path and overall. */
export type MethodTable = {
  /** The methods a path answers (HEAD wherever GET is), in a fixed order; empty for an unknown path. */
  allowedAt(path: string): string[];
  /** Whether any route answers this method (CONNECT, TRACE and OPTIONS are answered nowhere). */
  serves(method: string): boolean;
};

const ORDER = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"];
const byOrder = (a: string, b: string) => (ORDER.indexOf(a) + 1 || 99) - (ORDER.indexOf(b) + 1 || 99) || a.localeCompare(b);

/** The methods of a set, with HEAD added wherever GET is (the app answers HEAD from the GET route). */
function withHead(methods: Set<string>): string[] {
  if (methods.has("GET")) methods.add("HEAD");
  return [...methods].sort(byOrder);
}

/**
 * The method table of a route list, for the 405 answer and its Allow header (docs/api.md):
 * a path a route knows, asked with a method none of its routes answers. Paths are exact, like the
 * router's (a trailing slash is another path); a `:name` segment matches any one non-empty
 * segment. Catch-alls (`/x/*`) only answer "not found" pages, so they make no path known.
 */
export function methodTable(routes: readonly RouteEntry[]): MethodTable {
  const patterns = new Map<string, { segments: string[]; methods: Set<string> }>();
  const served = new Set<string>();
  for (const { method, path } of routes) {
    if (path.endsWith("*") || method === "ALL") continue;
    served.add(method);
    let entry = patterns.get(path);
    if (!entry) patterns.set(path, (entry = { segments: path.split("/"), methods: new Set() }));
    entry.methods.add(method);
  }
  const servedAll = new Set(withHead(served));
  const matches = (segments: string[], parts: string[]) =>
    segments.length === parts.length && segments.every((s, i) => (s.startsWith(":") ? parts[i] !== "" : s === parts[i]));
  return {
    allowedAt(path) {
      const parts = path.split("/");
      const methods = new Set<string>();
      for (const { segments, methods: m } of patterns.values()) if (matches(segments, parts)) for (const one of m) methods.add(one);
      return withHead(methods);
    },
    serves: (method) => servedAll.has(method),
  };
}
