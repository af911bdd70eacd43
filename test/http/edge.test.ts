import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Context, openContext, type RunningDaemon, startDaemon } from "../../src/daemon.ts";
import { methodTable } from "../../src/http/allowed-methods.ts";
import { serverOptions } from "../../src/http/server-options.ts";
import { jsonLogger } from "../../src/lib/log.ts";
import { until } from "../delivery/fixtures.ts";
import { testConfig } from "../support/harness.ts";
import { type RawAnswer, rawExchange } from "../support/raw-http.ts";

// The HTTP edge against requests no client library sends: a real daemon on an ephemeral port,
// spoken to over a raw TCP socket, its JSON log captured at debug.
type Line = Record<string, unknown> & { msg: string };
let dir: string;
let ctx: Context;
let daemon: RunningDaemon;
const lines: Line[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chainwatch-edge-"));
  const log = jsonLogger((l) => lines.push(JSON.parse(l)), Date.now, "debug");
  ctx = await openContext(testConfig(dir, { log: { level: "debug" } }), { log, env: {} });
  daemon = await startDaemon(ctx);
});
afterAll(async () => {
  await daemon.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Sends `head` (a request line and headers, no body) as written and reads the one answer. */
const raw = (head: string): Promise<RawAnswer> => rawExchange(daemon.url, head);

/** Nothing of the machine it runs on: no working directory, no source path, no stack frame. */
function expectNothingLeaked(a: RawAnswer) {
  const all = JSON.stringify(a);
  for (const leak of [process.cwd(), "src/", ".ts", "    at ", "<html", "stack"]) expect([leak, all.includes(leak)]).toEqual([leak, false]);
}

describe("methods the API does not answer", () => {
  test("CONNECT to an address answers 405 JSON with an empty Allow, is logged as JSON and counted", async () => {
    const a = await raw("CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n");
    expect(a.status).toBe(405);
    expect(a.headers["content-type"]).toBe("application/json;charset=utf-8");
    expect(a.headers.allow).toBe("");
    expect(JSON.parse(a.body)).toEqual({ error: "Method not allowed." });
    expectNothingLeaked(a);
    expect(lines.filter((l) => l.method === "CONNECT")).toEqual([
      { time: expect.any(String), level: "debug", msg: "request refused", method: "CONNECT", path: "127.0.0.1:443", status: 405, error: "Method not allowed." },
    ]);
    const metrics = await until(
      async () => (await fetch(`${daemon.url}/metrics`)).text(),
      (text) => text.includes('method="CONNECT"'),
    );
    expect(metrics).toContain('chainwatch_http_requests_total{route="unmatched",method="CONNECT",status="405"} 1');
  });

  test.each([
    ["CONNECT example.com:443", ""],
    ["CONNECT 127.0.0.1:443/cabinet/login?token=x", ""],
    ["CONNECT /cabinet/keys", "GET, HEAD, POST"],
    ["TRACE /v1/account", "GET, HEAD"],
    ["TRACE /nowhere", ""],
  ])("%s answers 405 JSON, Allow: %p", async (target, allow) => {
    const a = await raw(`${target} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
    expect([a.status, a.headers.allow, JSON.parse(a.body)]).toEqual([405, allow, { error: "Method not allowed." }]);
    expectNothingLeaked(a);
  });

  test.each([
    ["PATCH", "/v1/account", "GET, HEAD"],
    ["POST", "/v1/account", "GET, HEAD"],
    ["DELETE", "/v1/account/usage", "GET, HEAD"],
    ["PUT", "/healthz", "GET, HEAD"],
    ["OPTIONS", "/v1/payments/settings", "GET, HEAD, PUT"],
    ["DELETE", "/v1/payments/pay_123", "GET, HEAD"],
    ["GET", "/rpc/eth", "POST"],
    ["GET", "/ingest/blocks", "POST"],
    ["PUT", "/cabinet/keys", "GET, HEAD, POST"],
    ["POST", "/cabinet", "GET, HEAD"],
  ])("%s %s (a known path) answers 405 with Allow: %s", async (method, path, allow) => {
    const res = await fetch(`${daemon.url}${path}`, { method, redirect: "manual" });
    expect([res.status, res.headers.get("allow"), res.headers.get("content-type")]).toEqual([405, allow, "application/json;charset=utf-8"]);
    expect(await res.json()).toEqual({ error: "Method not allowed." });
  });

  test.each([
    ["DELETE", "/nowhere"],
    ["PUT", "/cabinet/nowhere"],
    ["GET", "/v1/account/"],
  ])("%s %s (an unknown path, a method the API answers) stays 404", async (method, path) => {
    const res = await fetch(`${daemon.url}${path}`, { method });
    expect([res.status, res.headers.get("allow")]).toEqual([404, null]);
    expect(await res.json()).toEqual({ error: "Not found." });
  });
});

describe("request targets no URL can hold", () => {
  test("a Host header with a space reaches the route, which answers without parsing a URL", async () => {
    const a = await raw("GET /cabinet/login?token=abc HTTP/1.1\r\nHost: a b\r\n\r\n");
    // The link is unknown: the sign-in refusal page, not a 500.
    expect(a.status).toBe(410);
    expect(a.body).toContain("This sign-in link is invalid, already used or expired.");
    expect(lines.filter((l) => l.msg === "unhandled error")).toEqual([]);
  });

  test("a refusal of such a request logs the raw path without its query", async () => {
    // Bun hands the bare target (`/v1/usage?secret=1`) through as the URL.
    const a = await raw("GET /v1/usage?secret=1 HTTP/1.1\r\nHost: a b\r\n\r\n");
    expect([a.status, JSON.parse(a.body)]).toEqual([404, { error: "Not found." }]);
    expect(lines.filter((l) => l.path === "/v1/usage")).toEqual([
      { time: expect.any(String), level: "debug", msg: "request refused", method: "GET", path: "/v1/usage", status: 404, error: "Not found." },
    ]);
    expect(JSON.stringify(lines)).not.toContain("secret=1");
  });
});

describe("the server's options", () => {
  test("never development mode; an escaped throw is a JSON 500 and a JSON log line", async () => {
    const logged: string[] = [];
    const opts = serverOptions(testConfig(dir), jsonLogger((l) => logged.push(l), () => 0, "debug"));
    expect(opts.development).toBe(false);
    const res = opts.error(new Error("boom"));
    expect([res.status, res.headers.get("content-type"), await res.json()]).toEqual([500, "application/json;charset=utf-8", { error: "Internal error." }]);
    expect(logged.map((l) => JSON.parse(l))).toEqual([{ time: "1970-01-01T00:00:00.000Z", level: "error", msg: "unhandled error", error: "Error: boom" }]);
  });
});

describe("the method table", () => {
  const table = methodTable([
    { method: "GET", path: "/v1/payments/settings" },
    { method: "PUT", path: "/v1/payments/settings" },
    { method: "GET", path: "/v1/payments/:payment_id" },
    { method: "POST", path: "/rpc/:network/:api_key" },
    { method: "GET", path: "/cabinet/" },
    { method: "GET", path: "/cabinet/*" },
    { method: "ALL", path: "/x/*" },
  ]);

  test.each([
    ["/v1/payments/settings", ["GET", "HEAD", "PUT"]],
    ["/v1/payments/pay_1", ["GET", "HEAD"]],
    ["/v1/payments/", []],
    ["/rpc/eth/key", ["POST"]],
    ["/rpc/eth", []],
    ["/cabinet/", ["GET", "HEAD"]],
    ["/cabinet", []],
    ["/cabinet/anything", []],
  ])("%s answers %p", (path, methods) => {
    expect(table.allowedAt(path)).toEqual(methods);
  });

  test("serves the methods of its routes (HEAD with GET), never CONNECT, TRACE or OPTIONS", () => {
    expect(["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "TRACE", "OPTIONS"].filter((m) => table.serves(m))).toEqual(["GET", "HEAD", "POST", "PUT"]);
  });
});
