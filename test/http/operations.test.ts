import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestDaemon, type TestDaemon } from "../support/harness.ts";
import { until } from "../support/poll.ts";

let td: TestDaemon;

beforeAll(async () => {
  td = await startTestDaemon();
});
afterAll(async () => {
  await td.stop();
});

/** /metrics is counted after each response is sent; poll (bounded) until `pattern` shows. */
function metricsMatching(pattern: RegExp): Promise<string> {
  return until(async () => (await fetch(`${td.url}/metrics`)).text(), (text) => pattern.test(text));
}

describe("operations endpoints", () => {
  test("GET /healthz answers 200 {\"ok\":true} without authentication", async () => {
    const res = await fetch(`${td.url}/healthz`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json;charset=utf-8");
    expect(await res.json()).toEqual({ ok: true });
  });

  test("GET /metrics is Prometheus text with request and auth-rejection counters", async () => {
    const c = await td.client();
    expect((await c.request("GET", "/v1/account")).status).toBe(200);
    expect((await fetch(`${td.url}/v1/account`)).status).toBe(401);
    const text = await metricsMatching(/chainwatch_auth_rejections_total\{reason="missing_api_key"\} 1/);
    expect(text).toContain("# TYPE chainwatch_http_requests_total counter");
    expect(text).toContain('chainwatch_http_requests_total{route="/v1/account",method="GET",status="200"} 1');
    expect(text).toContain('chainwatch_http_requests_total{route="/v1/account",method="GET",status="401"} 1');
    expect(text).toContain("# TYPE chainwatch_auth_rejections_total counter");
    expect(text).toContain('chainwatch_auth_rejections_total{reason="missing_api_key"} 1');
    const res = await fetch(`${td.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
  });

  test("unknown paths are counted under one route label, so /metrics cannot grow without bound", async () => {
    await fetch(`${td.url}/random-${crypto.randomUUID()}`);
    await fetch(`${td.url}/random-${crypto.randomUUID()}`);
    const text = await metricsMatching(/route="unmatched",method="GET",status="404"\} 2/);
    expect(text).toContain('chainwatch_http_requests_total{route="unmatched",method="GET",status="404"} 2');
    expect(text).not.toContain("random-");
  });

  test("a page that answers with its own response is counted under its real status", async () => {
    // The cabinet's pages build their Response themselves: a 401 without a session, a 410 for a bad link.
    expect((await fetch(`${td.url}/cabinet/`)).status).toBe(401);
    expect((await fetch(`${td.url}/cabinet/login`)).status).toBe(410);
    const text = await metricsMatching(/route="\/cabinet\/login",method="GET",status="410"\} 1/);
    expect(text).toContain('chainwatch_http_requests_total{route="/cabinet/",method="GET",status="401"} 1');
    expect(text).toContain('chainwatch_http_requests_total{route="/cabinet/login",method="GET",status="410"} 1');
    expect(text).not.toMatch(/route="\/cabinet\/(login)?",method="GET",status="200"/);
  });

  test("GET /openapi/json is an OpenAPI document listing the signed routes", async () => {
    const res = await fetch(`${td.url}/openapi/json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as any;
    expect(doc.openapi).toStartWith("3.");
    expect(doc.info.title).toBe("chainwatch");
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/v1/account", "/v1/account/usage", "/v1/endpoints", "/healthz"]));
    expect(doc.paths["/v1/account"].get).toBeDefined();
    expect(doc.components.securitySchemes.Signature).toEqual({ type: "apiKey", in: "header", name: "X-Signature" });
  });

  test("GET /openapi serves the human-readable reference", async () => {
    const res = await fetch(`${td.url}/openapi`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("text/html");
  });
});

describe("unknown paths", () => {
  test.each([
    ["GET", "/nope"],
    ["GET", "/v1/nope"],
    ["DELETE", "/nope"],
    ["GET", "/v2/account"],
  ])("%s %s answers 404 {\"error\":\"Not found.\"}", async (method, path) => {
    const res = await fetch(`${td.url}${path}`, { method });
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toBe("application/json;charset=utf-8");
    expect(await res.json()).toEqual({ error: "Not found." });
  });
});
