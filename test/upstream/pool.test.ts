import { afterAll, describe, expect, test } from "bun:test";
import { manualClock } from "../support/clock.ts";
import type { Logger } from "../../src/lib/log.ts";
import { createMetrics } from "../../src/lib/metrics.ts";
import { createUpstreamPool, upstreamLabel, upstreamPools } from "../../src/upstream/pool.ts";
import { startHostileNode } from "../support/hostile-node.ts";

// A real JSON-RPC node stand-in: answers eth_blockNumber with its own marker.
const node = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    const call = (await req.json()) as { id: number; method: string };
    if (new URL(req.url).pathname === "/broken") return new Response("<html>bad gateway</html>", { status: 200 });
    if (new URL(req.url).pathname === "/silent") return new Response(null, { status: 204 });
    if (new URL(req.url).pathname === "/slow") await Bun.sleep(300);
    return Response.json({ jsonrpc: "2.0", id: call.id, result: "0x10" });
  },
});
// A port nothing listens on.
const dead = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
const deadPort = dead.port;
const deadUrl = `http://127.0.0.1:${deadPort}/key-in-path`;
dead.stop(true);
const hostile = startHostileNode();
afterAll(() => {
  node.stop(true);
  hostile.stop();
});

const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] });
function recordingLog() {
  const lines: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
  const at = (level: string) => (msg: string, fields?: Record<string, unknown>) => void lines.push({ level, msg, fields });
  const log: Logger = { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
  return { log, lines };
}

describe("upstream pool", () => {
  test("labels drop the path, query and credentials of a provider URL", () => {
    expect(upstreamLabel("https://user:pw@rpc.example:8443/v3/SECRETKEY?x=1")).toBe("https://rpc.example:8443");
  });

  test("a dead first upstream fails over to the second, and the answer is the node's bytes", async () => {
    const { log, lines } = recordingLog();
    const metrics = createMetrics();
    const pool = createUpstreamPool({ network: "eth", urls: [deadUrl, node.url.href], timeoutMs: 2000, fetch, clock: manualClock(), log, metrics });
    const reply = await pool.send(body);
    expect(reply).toMatchObject({ ok: true, status: 200, upstream: upstreamLabel(node.url.href) });
    if (reply.ok) expect(JSON.parse(reply.text)).toEqual({ jsonrpc: "2.0", id: 1, result: "0x10" });
    expect(pool.current()).toBe(upstreamLabel(node.url.href));
    expect(pool.states()[0]).toMatchObject({ healthy: false, failures: 1, errors: 1 });
    expect(lines.filter((l) => l.msg === "upstream down")).toHaveLength(1);
    expect(JSON.stringify(lines)).not.toContain("key-in-path");
    expect(metrics.render()).toContain(`chainwatch_upstream_errors_total{network="eth",upstream="http://127.0.0.1:${deadPort}"} 1`);
  });

  test("onAnswer is told once an upstream answers 2xx, before the answer is parsed; not for a dead one or a refused status", async () => {
    const { log } = recordingLog();
    const told: string[] = [];
    const failing = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("no", { status: 503 }) });
    try {
      const pool = createUpstreamPool({ network: "eth", urls: [deadUrl, failing.url.href, node.url.href], timeoutMs: 2000, fetch, clock: manualClock(), log });
      const reply = await pool.send(body, {
        onAnswer: () => void told.push("answered"),
        parse: (text) => {
          told.push("parsed");
          return JSON.parse(text);
        },
      });
      expect(reply).toMatchObject({ ok: true, upstream: upstreamLabel(node.url.href) });
      expect(told).toEqual(["answered", "parsed"]);
    } finally {
      failing.stop(true);
    }
  });

  test("a backing-off upstream is skipped until its backoff ends, then logged once as recovered", async () => {
    const clock = manualClock();
    const { log, lines } = recordingLog();
    const pool = createUpstreamPool({ network: "eth", urls: [deadUrl, node.url.href], timeoutMs: 2000, fetch, clock, log });
    await pool.send(body);
    await pool.send(body);
    await pool.send(body);
    // Skipped while backing off: still one failure.
    expect(pool.states()[0].errors).toBe(1);
    clock.advance(501);
    await pool.send(body);
    expect(pool.states()[0]).toMatchObject({ errors: 2, failures: 2 });
    expect(lines.filter((l) => l.msg === "upstream down")).toHaveLength(1);
  });

  test("with every upstream backing off, the one whose backoff ends first is still tried", async () => {
    const clock = manualClock();
    const { log } = recordingLog();
    const pool = createUpstreamPool({ network: "eth", urls: [deadUrl], timeoutMs: 2000, fetch, clock, log });
    expect(await pool.send(body)).toMatchObject({ ok: false });
    expect(await pool.send(body)).toMatchObject({ ok: false });
    expect(pool.states()[0].errors).toBe(2);
  });

  test("a timeout, and a 2xx body that is not JSON, count as upstream failures", async () => {
    const { log } = recordingLog();
    const slow = createUpstreamPool({ network: "eth", urls: [`${node.url.href}slow`], timeoutMs: 50, fetch, clock: manualClock(), log });
    expect(await slow.send(body)).toEqual({ ok: false, code: "UPSTREAM_UNAVAILABLE", error: "timed out after 50 ms" });
    const broken = createUpstreamPool({ network: "eth", urls: [`${node.url.href}broken`], timeoutMs: 2000, fetch, clock: manualClock(), log });
    expect(await broken.send(body)).toEqual({ ok: false, code: "UPSTREAM_UNAVAILABLE", error: "answered with a body that is not JSON" });
  });

  test("recovery resets the backoff and logs once", async () => {
    const clock = manualClock();
    const { log, lines } = recordingLog();
    let down = true;
    const flaky: typeof fetch = Object.assign((input: string | URL | Request, init?: RequestInit) => (down ? Promise.reject(new Error("connection refused")) : fetch(input, init)), { preconnect: fetch.preconnect });
    const pool = createUpstreamPool({ network: "eth", urls: [node.url.href], timeoutMs: 2000, fetch: flaky, clock, log });
    expect(await pool.send(body)).toEqual({ ok: false, code: "UPSTREAM_UNAVAILABLE", error: "connection refused" });
    down = false;
    clock.advance(1000);
    expect(await pool.send(body)).toMatchObject({ ok: true });
    expect(pool.states()[0]).toMatchObject({ healthy: true, failures: 0 });
    expect(lines.map((l) => l.msg)).toEqual(["upstream down", "upstream recovered"]);
  });
});

describe("answer size", () => {
  test("an answer is read up to max_response_bytes and its size reported", async () => {
    const { log } = recordingLog();
    const pool = createUpstreamPool({ network: "eth", urls: [`${hostile.url}/4096/chunked`], timeoutMs: 2000, maxResponseBytes: 4096, fetch, clock: manualClock(), log });
    expect(await pool.send(body)).toMatchObject({ ok: true, status: 200, bytes: 4096 });
  });

  test("one byte more fails the request, not the node: no failover to the next upstream, no backoff, nothing logged", async () => {
    const { log, lines } = recordingLog();
    const metrics = createMetrics();
    const pool = createUpstreamPool({ network: "eth", urls: [`${hostile.url}/4097/chunked`, node.url.href], timeoutMs: 2000, maxResponseBytes: 4096, fetch, clock: manualClock(), log, metrics });
    const label = upstreamLabel(hostile.url);
    expect(await pool.send(body)).toEqual({ ok: false, code: "UPSTREAM_ANSWER_TOO_LARGE", error: `${label} answered with more than 4096 bytes (networks.eth.max_response_bytes)` });
    expect(pool.states()).toEqual([
      { label, healthy: true, failures: 0, errors: 0, downUntilMs: 0, lastError: null },
      { label: upstreamLabel(node.url.href), healthy: true, failures: 0, errors: 0, downUntilMs: 0, lastError: null },
    ]);
    expect(lines).toEqual([]);
    expect(metrics.render()).not.toContain("chainwatch_upstream_errors_total");
  });

  test("a request of notifications takes an empty answer (anvil's 204) as success; a call does not", async () => {
    const { log } = recordingLog();
    const pool = createUpstreamPool({ network: "eth", urls: [`${node.url.href}silent`], timeoutMs: 2000, fetch, clock: manualClock(), log });
    expect(await pool.send(body, { expectsAnswer: false })).toMatchObject({ ok: true, status: 204, text: "", bytes: 0, json: null });
    expect(pool.states()[0]).toMatchObject({ healthy: true, errors: 0 });
    expect(await pool.send(body)).toEqual({ ok: false, code: "UPSTREAM_UNAVAILABLE", error: "answered with a body that is not JSON" });
  });
});

describe("answer nesting", () => {
  test("an answer nesting 65 levels fails its node before any parse runs, and the next node answers; 64 levels pass", async () => {
    const { log, lines } = recordingLog();
    const pool = createUpstreamPool({ network: "eth", urls: [`${hostile.url}/64/deep`, node.url.href], timeoutMs: 2000, fetch, clock: manualClock(), log });
    const parsed: string[] = [];
    const parse = (text: string) => {
      parsed.push(text);
      return JSON.parse(text);
    };
    expect(await pool.send(body, { parse })).toMatchObject({ ok: true, upstream: upstreamLabel(node.url.href), json: { result: "0x10" } });
    expect(parsed).toEqual(['{"jsonrpc":"2.0","id":1,"result":"0x10"}']);
    expect(pool.states()[0]).toMatchObject({ healthy: false, errors: 1, lastError: "answered with JSON nested deeper than 64 levels" });
    expect(lines).toEqual([{ level: "warn", msg: "upstream down", fields: { network: "eth", upstream: upstreamLabel(hostile.url), error: "answered with JSON nested deeper than 64 levels" } }]);
    // 64 levels (the answer object and 63 arrays) are parsed.
    const shallower = createUpstreamPool({ network: "eth", urls: [`${hostile.url}/63/deep`], timeoutMs: 2000, fetch, clock: manualClock(), log });
    const reply = await shallower.send(body);
    expect(reply.ok && JSON.stringify((reply.json as { result: unknown }).result)).toBe(`${"[".repeat(63)}${"]".repeat(63)}`);
  });
});

describe("the network's secrets in what the pool says", () => {
  test("a failure quoting the URL's credentials and key or the API key is logged, kept and returned redacted", async () => {
    const { log, lines } = recordingLog();
    const url = "http://rpc-user:pa55word@127.0.0.1:1/v3/0123456789abcdef0123456789abcdef?token=token-token-token-1";
    // A fetch whose error quotes what it was asked (as a proxy's or another runtime's may).
    const quoting = (async (target: string, init: RequestInit) => {
      throw new Error(`cannot reach ${target} with ${JSON.stringify(init.headers)}`);
    }) as unknown as typeof fetch;
    const pool = createUpstreamPool({ network: "tron", urls: [url], timeoutMs: 2000, fetch: quoting, clock: manualClock(), log, apiKey: "tron-key-0042" });
    const reply = await pool.send("{}", { headers: { "TRON-PRO-API-KEY": "tron-key-0042" } });
    const said = `cannot reach http://[redacted]:[redacted]@127.0.0.1:1/v3/[redacted]?token=[redacted] with {"Content-Type":"application/json","TRON-PRO-API-KEY":"[redacted]"}`;
    expect(reply).toEqual({ ok: false, code: "UPSTREAM_UNAVAILABLE", error: said });
    expect(pool.states()[0].lastError).toBe(said);
    expect(lines.map((l) => l.fields?.error)).toEqual([said]);
    expect(pool.redact("the node said pa55word and TRON-KEY-0042")).toBe("the node said [redacted] and [redacted]");
  });
});

describe("paths and headers per request (HTTP APIs such as java-tron's)", () => {
  // Records what arrives; `/moved/...` redirects to the recorder's own `/elsewhere`.
  const seen: { path: string; search: string; key: string | null }[] = [];
  const api = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const url = new URL(req.url);
      seen.push({ path: url.pathname, search: url.search, key: req.headers.get("TRON-PRO-API-KEY") });
      if (url.pathname.startsWith("/moved/")) return Response.redirect(`${url.origin}/elsewhere`, 302);
      return Response.json({ blockID: "00" });
    },
  });
  afterAll(() => api.stop(true));

  test("the path is appended to the upstream's URL, whatever its own path and query, and the headers are sent", async () => {
    const { log, lines } = recordingLog();
    seen.length = 0;
    const pool = createUpstreamPool({ network: "tron", urls: [`${api.url.href}base/?x=1`], timeoutMs: 2000, fetch, clock: manualClock(), log });
    const reply = await pool.send("{}", { path: "/wallet/getblock", headers: { "TRON-PRO-API-KEY": "k-123" } });
    expect(reply).toMatchObject({ ok: true, status: 200, json: { blockID: "00" } });
    await pool.send("{}", { path: "/wallet/getblock" });
    expect(seen).toEqual([
      { path: "/base/wallet/getblock", search: "?x=1", key: "k-123" },
      { path: "/base/wallet/getblock", search: "?x=1", key: null },
    ]);
    expect(lines).toEqual([]);
  });

  test("a request with headers follows no redirect: the 3xx fails the upstream, nothing reaches the other place, the key is not logged", async () => {
    const { log, lines } = recordingLog();
    seen.length = 0;
    const pool = createUpstreamPool({ network: "tron", urls: [`${api.url.href}moved`], timeoutMs: 2000, fetch, clock: manualClock(), log });
    expect(await pool.send("{}", { path: "/wallet/getblock", headers: { "TRON-PRO-API-KEY": "k-123" } })).toEqual({ ok: false, code: "UPSTREAM_UNAVAILABLE", error: "HTTP 302" });
    expect(seen.map((s) => s.path)).toEqual(["/moved/wallet/getblock"]);
    expect(lines.map((l) => l.msg)).toEqual(["upstream down"]);
    expect(JSON.stringify(lines)).not.toContain("k-123");
  });
});

describe("credentials in the URL (Bitcoin Core's basic auth)", () => {
  const seen: { path: string; auth: string | null }[] = [];
  const node = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const url = new URL(req.url);
      seen.push({ path: url.pathname, auth: req.headers.get("authorization") });
      if (url.pathname === "/moved") return Response.redirect(`${url.origin}/elsewhere`, 302);
      return Response.json([{ result: 1, error: null, id: 0 }]);
    },
  });
  afterAll(() => node.stop(true));
  const at = (path: string) => `http://rpc%40user:s3cr%3At@127.0.0.1:${node.port}${path}`;

  test("are sent as basic auth, and neither the label nor a failure names them", async () => {
    const { log, lines } = recordingLog();
    seen.length = 0;
    const pool = createUpstreamPool({ network: "btc", urls: [at("/"), at("/moved")], timeoutMs: 2000, fetch, clock: manualClock(), log });
    expect(await pool.send("[]")).toMatchObject({ ok: true, json: [{ result: 1, error: null, id: 0 }] });
    expect(seen).toEqual([{ path: "/", auth: `Basic ${btoa("rpc@user:s3cr:t")}` }]);
    expect(pool.current()).toBe(`http://127.0.0.1:${node.port}`);
    expect(JSON.stringify(pool.states())).not.toContain("s3cr");
    expect(JSON.stringify(lines)).not.toContain("s3cr");
  });

  test("a redirect is not followed, so the credentials never travel on", async () => {
    const { log, lines } = recordingLog();
    seen.length = 0;
    const pool = createUpstreamPool({ network: "btc", urls: [at("/moved")], timeoutMs: 2000, fetch, clock: manualClock(), log });
    expect(await pool.send("[]")).toEqual({ ok: false, code: "UPSTREAM_UNAVAILABLE", error: "HTTP 302" });
    expect(seen.map((s) => s.path)).toEqual(["/moved"]);
    expect(JSON.stringify(lines)).not.toContain("s3cr");
  });
});

describe("upstream pools", () => {
  test("one pool per network with rpc_urls, none for the others", () => {
    const { log } = recordingLog();
    const pools = upstreamPools(
      { eth: { rpc_urls: [node.url.href], rpc_timeout_ms: 1000 }, btc: { rpc_urls: [], rpc_timeout_ms: 1000 } },
      { fetch, clock: manualClock(), log },
    );
    expect([...pools.keys()]).toEqual(["eth"]);
    expect(pools.get("eth")?.current()).toBe(upstreamLabel(node.url.href));
  });
});
