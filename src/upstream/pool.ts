import { DEFAULT_MAX_RESPONSE_BYTES } from "../config/schema.ts";
import { jsonNestsDeeperThan, MAX_JSON_DEPTH } from "../lib/json-depth.ts";
import type { Metrics } from "../lib/metrics.ts";
import type { Clock } from "../lib/clock.ts";
import type { Explained } from "../lib/error-codes.ts";
import type { Logger } from "../lib/log.ts";
import { urlLabel } from "../net/url-label.ts";
import { redactorOf, urlSecrets } from "./redaction.ts";

/**
 * What one upstream answered: the raw response text (passed through by /rpc byte for byte), its
 * size in bytes, and the same text parsed (`json`), since the pool parses it anyway to tell a node
 * from a broken proxy. A request of notifications alone expects no answer: then `text` is "" and
 * `json` null. A failure says what went wrong: UPSTREAM_ANSWER_TOO_LARGE when a node answered
 * with more than `max_response_bytes`, else UPSTREAM_UNAVAILABLE with the last node's error
 * (redacted: see `redact`).
 */
export type UpstreamReply =
  | { ok: true; upstream: string; status: number; text: string; bytes: number; json: unknown; ms: number }
  | Explained<"UPSTREAM_UNAVAILABLE" | "UPSTREAM_ANSWER_TOO_LARGE">;

/**
 * How a body is sent: `expectsAnswer: false` for notifications alone, which a node answers with an
 * empty body; `path` is appended to the upstream's URL (a node whose API has a path per call, such
 * as java-tron's `/wallet/getblock`); `headers` are added to the request. A request with `headers`
 * (they may carry an API key) follows no redirect: a 3xx fails the upstream like any non-2xx, so a
 * credential never travels on to another host. Nor does a request to an upstream whose URL carries
 * credentials (sent as basic auth).
 */
export type SendOptions = {
  expectsAnswer?: boolean;
  path?: string;
  headers?: Record<string, string>;
  /** How the answer's text becomes `json` (JSON.parse by default): a family reading amounts exactly parses its own way, once. */
  parse?: (text: string) => unknown;
  /** The deepest nesting the answer may have (MAX_JSON_DEPTH when left out): a call trace nests as deep as the calls it traces. */
  maxDepth?: number;
  /** Called when an upstream has answered with a 2xx status, before its body is read and parsed: the request no longer occupies the node. */
  onAnswer?: () => void;
};

/**
 * One configured node and what the pool knows of its health. `label` is safe to log (no path,
 * query or credentials). `downUntilMs` is a reading of the monotonic clock (0: not backing off),
 * so a step of the wall clock neither ends a backoff nor makes it last an hour.
 */
export type UpstreamState = { label: string; healthy: boolean; failures: number; errors: number; downUntilMs: number; lastError: string | null };

/** A network's `rpc_urls`, tried in order with failover and per-upstream backoff. */
export type UpstreamPool = {
  /** Posts one body (a JSON-RPC call or batch, or an HTTP API request) to the first usable upstream, failing over to the next. */
  send(body: string, options?: SendOptions): Promise<UpstreamReply>;
  /** The label of the upstream that answered last (the first configured one until then). */
  current(): string;
  /** Health of every upstream, in configured order. */
  states(): UpstreamState[];
  /**
   * A text with the network's secrets replaced by `[redacted]`: the credentials and key-like path
   * segments and query values of every `rpc_urls` entry, and the API key its requests carry
   * (upstream/redaction.ts). Whatever a node said that reaches a log, a status, an error or a client
   * passes through it; the pool's own errors already have.
   */
  redact(text: string): string;
};

/**
 * What the follower's upstream quorum (follow/core/quorum.ts) needs of a network's pool beyond
 * sending: each upstream on its own, and a say in which one is tried first.
 */
export type UpstreamChoice = {
  /**
   * A pool of the one upstream at `index` (configured order): no failover, and an upstream backing
   * off answers UPSTREAM_UNAVAILABLE at once without a request. Its health is the pool's, but its
   * answers do not change `current()`: asking another node does not make it the one read from.
   */
  only(index: number): UpstreamPool;
  /** Tries the upstream at `index` first from now on (for the follower and /rpc alike), the others after it in configured order. */
  prefer(index: number): void;
  /** The index of the upstream `current()` names. */
  currentIndex(): number;
};

export type UpstreamPoolDeps = {
  network: string;
  urls: string[];
  timeoutMs: number;
  /** Most bytes an answer may have (`[networks.X] max_response_bytes`); 32 MiB when absent. */
  maxResponseBytes?: number;
  fetch: typeof fetch;
  clock: Clock;
  log: Logger;
  metrics?: Metrics;
  /** The API key sent with every request (a tron network's `api_key`), kept out of what the pool lets through like the URLs' secrets. */
  apiKey?: string | null;
};

const BASE_BACKOFF_MS = 500;
const JSON_HEADERS = { "Content-Type": "application/json" };
const MAX_BACKOFF_MS = 30_000;

/** How an upstream is named in logs, metrics and `follow status`: no path, query or credentials. */
export const upstreamLabel = urlLabel;

/** Thrown by readCapped past the cap; `send` answers it without failing the node over. */
class AnswerTooLarge extends Error {}

/** An answer nested deeper than its bound (MAX_JSON_DEPTH unless the call allows more): a failure of the node like a body that is not JSON, so the next one is asked. */
class TooDeep extends Error {
  constructor(depth: number) {
    super(`answered with JSON nested deeper than ${depth} levels`);
  }
}

/**
 * Builds the pool. An upstream fails on a network error, a timeout, a non-2xx status or a body
 * that is not JSON or nests deeper than MAX_JSON_DEPTH (scanned before any parse: JSON.parse
 * builds every level first, and 32 MiB of `[[[…` cost 1.5 GB); it is then skipped for a backoff
 * that doubles with each consecutive failure (0.5 s up to 30 s) and logged once when it goes down
 * and once when it recovers. A JSON-RPC `error` inside a 2xx answer is the node's answer, not an
 * upstream failure.
 *
 * Answers are read as a stream and given up past `maxResponseBytes`: that reply is a failure of
 * the request, not of the node. It is not retried on the next upstream (any node holds the same
 * chain, so the same question gets the same answer) and puts no node into backoff, or one client
 * asking for a huge `eth_getLogs` range could take the nodes away from every other client and
 * from the follower.
 */
export function createUpstreamPool(deps: UpstreamPoolDeps): UpstreamPool & UpstreamChoice {
  const cap = deps.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const nodes = deps.urls.map((url) => ({
    url,
    /** Credentials in the URL (`http://user:pass@host:8332`, Bitcoin Core's basic auth): fetch sends them, so no redirect is followed. */
    credentialed: hasCredentials(url),
    /** The URL with each `path` asked for appended, built once per path. */
    paths: new Map<string, string>(),
    state: { label: upstreamLabel(url), healthy: true, failures: 0, errors: 0, downUntilMs: 0, lastError: null } as UpstreamState,
  }));
  let last = 0;
  /** The order `send` tries upstreams in: configured, or the preferred one first (prefer()). */
  let order = nodes;
  const deadline = sharedDeadlines(deps.timeoutMs);
  const redact = redactorOf([...deps.urls.flatMap(urlSecrets), deps.apiKey ?? ""]);

  /** Puts a node into backoff; `error` becomes the node's (redacted) last error, which `send` returns when no node answers. */
  const fail = (node: (typeof nodes)[number], reason: string): string => {
    const error = redact(reason);
    const s = node.state;
    s.failures += 1;
    s.errors += 1;
    s.lastError = error;
    s.downUntilMs = deps.clock.monotonic() + Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** (s.failures - 1));
    deps.metrics?.inc("chainwatch_upstream_errors_total", { network: deps.network, upstream: s.label });
    if (s.healthy) {
      s.healthy = false;
      deps.log.warn("upstream down", { network: deps.network, upstream: s.label, error });
    }
    return error;
  };
  const succeed = (node: (typeof nodes)[number]) => {
    const s = node.state;
    if (!s.healthy) deps.log.info("upstream recovered", { network: deps.network, upstream: s.label });
    s.healthy = true;
    s.failures = 0;
    s.downUntilMs = 0;
  };

  /** Usable upstreams in `order`; when every one is backing off, only the one whose backoff ends first. */
  const candidates = () => {
    const now = deps.clock.monotonic();
    const usable = order.filter((n) => n.state.downUntilMs <= now);
    if (usable.length > 0 || nodes.length === 0) return usable;
    return [nodes.reduce((a, b) => (b.state.downUntilMs < a.state.downUntilMs ? b : a))];
  };

  /**
   * One request to one upstream: its reply, or the failure it came to; `failed` when the upstream
   * failed (it is put into backoff), so the caller may ask the next one.
   */
  const attempt = async (node: (typeof nodes)[number], body: string, options: SendOptions): Promise<UpstreamReply & { failed?: true }> => {
    const expectsAnswer = options.expectsAnswer ?? true;
    const started = performance.now();
    try {
      const res = await deps.fetch(options.path ? urlWithPath(node, options.path) : node.url, {
        method: "POST",
        headers: options.headers ? { ...JSON_HEADERS, ...options.headers } : JSON_HEADERS,
        body,
        signal: deadline(),
        ...(options.headers || node.credentialed ? { redirect: "manual" as const } : {}),
      });
      if (res.status < 200 || res.status > 299) {
        await res.body?.cancel().catch(() => {});
        throw new Error(`HTTP ${res.status}`);
      }
      options.onAnswer?.();
      const { text, bytes } = await readCapped(res, cap);
      const maxDepth = options.maxDepth ?? MAX_JSON_DEPTH;
      if (expectsAnswer && jsonNestsDeeperThan(text, maxDepth)) throw new TooDeep(maxDepth);
      const json: unknown = expectsAnswer ? (options.parse ?? JSON.parse)(text) : null;
      succeed(node);
      return { ok: true, upstream: node.state.label, status: res.status, text: expectsAnswer ? text : "", bytes, json, ms: performance.now() - started };
    } catch (e) {
      if (e instanceof AnswerTooLarge) {
        return { ok: false, code: "UPSTREAM_ANSWER_TOO_LARGE", error: `${node.state.label} answered with more than ${cap} bytes (networks.${deps.network}.max_response_bytes)` };
      }
      const err = e as Error;
      const error = fail(node, err.name === "TimeoutError" ? `timed out after ${deps.timeoutMs} ms` : err instanceof SyntaxError ? "answered with a body that is not JSON" : err.message);
      return { ok: false, code: "UPSTREAM_UNAVAILABLE", error, failed: true };
    }
  };

  const pool: UpstreamPool = {
    async send(body, options = {}) {
      let error = "no rpc_urls configured";
      for (const node of candidates()) {
        const reply = await attempt(node, body, options);
        if (reply.ok) last = nodes.indexOf(node);
        if (!reply.ok && reply.failed) {
          error = reply.error;
          continue;
        }
        return reply.ok ? reply : { ok: false, code: reply.code, error: reply.error };
      }
      return { ok: false, code: "UPSTREAM_UNAVAILABLE", error };
    },
    current: () => nodes[last]?.state.label ?? "",
    states: () => nodes.map((n) => ({ ...n.state })),
    redact,
  };

  return {
    ...pool,
    only(index) {
      const node = nodes[index];
      return {
        ...pool,
        async send(body, options = {}) {
          if (node.state.downUntilMs > deps.clock.monotonic()) {
            return { ok: false, code: "UPSTREAM_UNAVAILABLE", error: `${node.state.label} is backing off after failing: ${node.state.lastError ?? "an error"}` };
          }
          const reply = await attempt(node, body, options);
          return reply.ok ? reply : { ok: false, code: reply.code, error: reply.error };
        },
        current: () => node.state.label,
      };
    },
    prefer(index) {
      const first = nodes[index];
      if (first) order = [first, ...nodes.filter((n) => n !== first)];
    },
    currentIndex: () => last,
  };
}

function hasCredentials(url: string): boolean {
  try {
    const u = new URL(url);
    return u.username !== "" || u.password !== "";
  } catch {
    return false;
  }
}

/** An upstream URL with a path appended to its own (`http://node:8090/` + `/wallet/getblock`); its query is kept. */
function urlWithPath(node: { url: string; paths: Map<string, string> }, path: string): string {
  let url = node.paths.get(path);
  if (url === undefined) {
    const u = new URL(node.url);
    u.pathname = u.pathname.replace(/\/+$/, "") + path;
    url = u.href;
    node.paths.set(path, url);
  }
  return url;
}

/**
 * A response body as text, read chunk by chunk and given up (the stream cancelled) as soon as it
 * passes `cap` bytes, so a hostile or runaway node costs at most `cap` bytes of memory. Bytes are
 * counted as decoded: a small gzip body that inflates past the cap is refused like a large one.
 */
async function readCapped(res: Response, cap: number): Promise<{ text: string; bytes: number }> {
  // A declared length is the body's exact size (HTTP framing), unless it is the compressed size:
  // over the cap it is refused before a byte is read; within it the body is read whole, the
  // cheapest way (the common case: a node answering with Content-Length).
  const declared = res.headers.has("content-encoding") ? Number.NaN : Number(res.headers.get("content-length") ?? Number.NaN);
  if (declared > cap) {
    await res.body?.cancel().catch(() => {});
    throw new AnswerTooLarge();
  }
  if (Number.isSafeInteger(declared)) return { text: await res.text(), bytes: declared };
  if (!res.body) return { text: "", bytes: 0 };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > cap) {
      await reader.cancel().catch(() => {});
      throw new AnswerTooLarge();
    }
    chunks.push(value);
  }
  const all = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, bytes);
  return { text: utf8.decode(all), bytes };
}

const utf8 = new TextDecoder();

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
  networks: Record<string, { rpc_urls: string[]; rpc_timeout_ms: number; max_response_bytes?: number; api_key?: string }>,
  deps: Omit<UpstreamPoolDeps, "network" | "urls" | "timeoutMs" | "maxResponseBytes" | "apiKey">,
): Map<string, UpstreamPool & UpstreamChoice> {
  const pools = new Map<string, UpstreamPool & UpstreamChoice>();
  for (const [network, n] of Object.entries(networks)) {
    if (n.rpc_urls.length > 0) {
      pools.set(network, createUpstreamPool({ ...deps, network, urls: n.rpc_urls, timeoutMs: n.rpc_timeout_ms, maxResponseBytes: n.max_response_bytes, apiKey: n.api_key }));
    }
  }
  return pools;
}
