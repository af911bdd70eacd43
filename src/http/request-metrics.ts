import type { Metrics } from "../lib/metrics.ts";

/**
 * Counts one answered request in `chainwatch_http_requests_total` (docs/operations.md); `by` -1
 * takes back a count made in the same turn for an answer that then failed (src/http/app.ts).
 */
export type CountRequest = (route: string, method: string, status: number, by?: number) => void;

/**
 * The request counter shared by Elysia's hook and the routes Bun's server answers itself
 * (./native-routes.ts), so both count the same series. One bound counter per (route, method,
 * status): rendering the labels on every request cost more than some routes.
 */
export function requestCounter(metrics: Metrics): CountRequest {
  const counters = new Map<string, { inc(by?: number): void }>();
  return (route, method, status, by = 1) => {
    const k = `${route}\n${method}\n${status}`;
    let counter = counters.get(k);
    if (!counter) {
      counter = metrics.counter("chainwatch_http_requests_total", { route: route || "unmatched", method, status });
      counters.set(k, counter);
    }
    counter.inc(by);
  };
}
