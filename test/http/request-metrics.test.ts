import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { createApp } from "../../src/http/app.ts";
import { createMetrics } from "../../src/lib/metrics.ts";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { until } from "../support/poll.ts";

// chainwatch_http_requests_total counts every answer once, under its route, method and status,
// whichever step of the request answered it: a handler, the signature check, a handler's refusal,
// the router (404, 405), the URL or body checks, a hook before the handler, a stream.
let td: TestDaemon;
let c: TestClient;

beforeAll(async () => {
  td = await startTestDaemon();
  c = await td.client();
});
afterAll(async () => {
  await td.stop();
});

/** The series of chainwatch_http_requests_total in a /metrics text, as `route method status` → count. */
function requestCounts(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^chainwatch_http_requests_total\{route="([^"]*)",method="([^"]*)",status="([^"]*)"\} (\d+)$/gm)) out[`${m[1]} ${m[2]} ${m[3]}`] = Number(m[4]);
  return out;
}

describe("the request counter", () => {
  test("counts each answer of the daemon once, from whichever step answered it", async () => {
    const raw = (method: string, path: string, body?: string) => fetch(`${td.url}${path}`, { method, body, headers: body ? { "content-type": "application/json" } : {} });
    const answers = [
      [await c.request("GET", "/v1/account"), 200],
      [await c.request("GET", "/v1/account"), 200],
      [await raw("GET", "/v1/account"), 401],
      [await c.request("GET", "/v1/account/usage?days=nope"), 400],
      [await c.request("POST", "/v1/webhooks/endpoints", "{nope"), 400],
      [await raw("GET", "/nowhere"), 404],
      [await raw("DELETE", "/v1/account"), 405],
      [await raw("GET", "/v1/account?x=%00"), 400],
      [await raw("HEAD", "/healthz"), 200],
    ] as const;
    expect(answers.map(([res]) => res.status)).toEqual(answers.map(([, status]) => status));
    const expected = {
      "/v1/account GET 200": 2,
      "/v1/account GET 401": 1,
      "/v1/account/usage GET 400": 1,
      "/v1/webhooks/endpoints POST 400": 1,
      "unmatched GET 404": 1,
      "unmatched DELETE 405": 1,
      "unmatched GET 400": 1,
      "/healthz HEAD 200": 1,
    };
    const counts = await until(
      async () => requestCounts(await (await fetch(`${td.url}/metrics`)).text()),
      (got) => Object.entries(expected).every(([k, n]) => got[k] === n),
    );
    expect(counts).toEqual(expected);
  });

  test("counts a hook's early answer, a handler's own Response, a thrown error, an answer that cannot be serialised and a stream, each once", async () => {
    const metrics = createMetrics();
    const beside = new Elysia()
      .get("/early", () => "never", {
        beforeHandle: ({ set }) => {
          set.status = 418;
          return "early";
        },
      })
      .get("/own", () => new Response("made here", { status: 202 }))
      .get("/throws", () => {
        throw new Error("a bug");
      })
      .get("/bigint", () => ({ n: 1n }))
      .get("/stream", function* () {
        yield "a";
        yield "b";
      });
    const app = createApp({ ...td.daemon.deps, metrics, log: { ...td.daemon.deps.log, error: () => {} } }, beside);
    const answers: [string, number, string][] = [];
    for (const path of ["/early", "/own", "/throws", "/bigint", "/stream", "/stream"]) {
      const res = await app.handle(new Request(`http://127.0.0.1${path}`));
      answers.push([path, res.status, await res.text()]);
    }
    expect(answers).toEqual([
      ["/early", 418, "early"],
      ["/own", 202, "made here"],
      ["/throws", 500, '{"error":"Internal error."}'],
      // A value JSON cannot hold: the handler answered, serialising it failed.
      ["/bigint", 500, '{"error":"Internal error."}'],
      ["/stream", 200, "ab"],
      ["/stream", 200, "ab"],
    ]);
    const expected = { "/early GET 418": 1, "/own GET 202": 1, "/throws GET 500": 1, "/bigint GET 500": 1, "/stream GET 200": 2 };
    const counts = await until(
      async () => requestCounts(metrics.render()),
      (got) => Object.entries(expected).every(([k, n]) => got[k] === n),
    );
    // Counted once, as answered (a series of the 200 it was first counted as may show, at 0).
    expect(Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0))).toEqual(expected);
  });
});
