import type { Metrics } from "../lib/metrics.ts";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/log.ts";
import { urlLabel } from "../net/url-label.ts";

/**
 * What one upstream answered: the raw response text (passed through by /rpc byte for byte) and the
 * same text parsed (`json`), since the pool parses it anyway to tell a node from a broken proxy.
 */
export type UpstreamReply =
  | { ok: true; upstream: string; status: number; text: string; json: unknown; ms: number }
  | { ok: false; error: string };

/** One configured node and what the pool knows of its health. `label` is safe to log (no path, query or credentials). */
export type UpstreamState = { label: string; healthy: boolean; failures: number; errors: number; downUntilMs: number; lastError: string | null };

/** A network's `rpc_urls`, tried in order with failover and per-upstream backoff. */
export type UpstreamPool = {
  /** Posts one JSON-RPC body (a call or a batch) to the first usable upstream, failing over to the next. */
  send(body: string): Promise<UpstreamReply>;
  /** The label of the upstream that answered last (the first configured one until then). */
  current(): string;
  /** Health of every upstream, in configured order. */
  states(): UpstreamState[];
};

export type UpstreamPoolDeps = {
  network: string;
  urls: string[];
  timeoutMs: number;
  fetch: typeof fetch;
  clock: Clock;
  log: Logger;
  metrics?: Metrics;
};

const BASE_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 30_000;

/** How an upstream is named in logs, metrics and `follow status`: no path, query or credentials. */
export const upstreamLabel = urlLabel;

/**
 * Builds the pool. An upstream fails on a network error, a timeout, a non-2xx status or a body
 * that is not JSON; it is then skipped for a backoff that doubles with each consecutive failure
 * (0.5 s up to 30 s) and logged once when it goes down and once when it recovers. A JSON-RPC
 * `error` inside a 2xx answer is the node's answer, not an upstream failure.
 */
export function createUpstreamPool(deps: UpstreamPoolDeps): UpstreamPool {
  const nodes = deps.urls.map((url) => ({
    url,
    state: { label: upstreamLabel(url), healthy: true, failures: 0, errors: 0, downUntilMs: 0, lastError: null } as UpstreamState,
  }));
  let last = nodes[0]?.state.label ?? "";
  const deadline = sharedDeadlines(deps.timeoutMs);

  const fail = (node: (typeof nodes)[number], error: string) => {
    const s = node.state;
    s.failures += 1;
    s.errors += 1;
    s.lastError = error;
    s.downUntilMs = deps.clock.now() + Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** (s.failures - 1));
    deps.metrics?.inc("chainwatch_upstream_errors_total", { network: deps.network, upstream: s.label });
    if (s.healthy) {
      s.healthy = false;
      deps.log.warn("upstream down", { network: deps.network, upstream: s.label, error });
    }
  };
  const succeed = (node: (typeof nodes)[number]) => {
    const s = node.state;
    if (!s.healthy) deps.log.info("upstream recovered", { network: deps.network, upstream: s.label });
    s.healthy = true;
    s.failures = 0;
    s.downUntilMs = 0;
    last = s.label;
  };

  /** Usable upstreams in configured order; when every one is backing off, only the one whose backoff ends first. */
  const candidates = () => {
    const now = deps.clock.now();
    const usable = nodes.filter((n) => n.state.downUntilMs <= now);
    if (usable.length > 0 || nodes.length === 0) return usable;
    return [nodes.reduce((a, b) => (b.state.downUntilMs < a.state.downUntilMs ? b : a))];
  };

  return {
    async send(body) {
      let error = "no rpc_urls configured";
      for (const node of candidates()) {
        const started = performance.now();
        try {
          const res = await deps.fetch(node.url, {
            method: "POST",
            headers: { "Content-Type": "application/json" },
            body,
            signal: deadline(),
          });
          const text = await res.text();
          if (res.status < 200 || res.status > 299) throw new Error(`HTTP ${res.status}`);
          const json: unknown = JSON.parse(text);
          succeed(node);
          return { ok: true, upstream: node.state.label, status: res.status, text, json, ms: performance.now() - started };
        } catch (e) {
          const err = e as Error;
          error = err.name === "TimeoutError" ? `timed out after ${deps.timeoutMs} ms` : err instanceof SyntaxError ? "answered with a body that is not JSON" : err.message;
          fail(node, error);
        }
      }
      return { ok: false, error };
    },
    current: () => last,
    states: () => nodes.map((n) => ({ ...n.state })),
  };
}

/**
 * Abort signals for requests that must end `timeoutMs` after they start, shared by the requests
 * started within the same slice (a tenth of the timeout, at most 100 ms): one timer per slice
 * instead of one per request (`AbortSignal.timeout` cost /rpc about 9 µs of CPU a call). A request
 * is aborted between `timeoutMs` and `timeoutMs` + one slice after it started.
 */
function sharedDeadlines(timeoutMs: number): () => AbortSignal {
  const slice = Math.max(1, Math.min(100, Math.floor(timeoutMs / 10)));
  let current: { until: number; signal: AbortSignal } | null = null;
  return () => {
    const now = performance.now();
    if (current === null || now >= current.until) {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(new DOMException(`timed out after ${timeoutMs} ms`, "TimeoutError")), timeoutMs + slice);
      // A pending deadline must not keep the process alive on shutdown.
      timer.unref?.();
      current = { until: now + slice, signal: controller.signal };
    }
    return current.signal;
  };
}

/**
 * One pool per network that has `rpc_urls`, built once by the composition root and shared by the
 * network's follower and the /rpc endpoint, so both see the same upstream health.
 */
export function upstreamPools(
  networks: Record<string, { rpc_urls: string[]; rpc_timeout_ms: number }>,
  deps: Omit<UpstreamPoolDeps, "network" | "urls" | "timeoutMs">,
): Map<string, UpstreamPool> {
  const pools = new Map<string, UpstreamPool>();
  for (const [network, n] of Object.entries(networks)) {
    if (n.rpc_urls.length > 0) pools.set(network, createUpstreamPool({ ...deps, network, urls: n.rpc_urls, timeoutMs: n.rpc_timeout_ms }));
  }
  return pools;
}
