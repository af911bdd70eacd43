import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createServer } from "../../src/server.ts";
import { type Anvil, startAnvil } from "../support/anvil.ts";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";

// POST /rpc/... is answered by Bun's server itself (src/http/native-routes.ts), every other request
// by Elysia. `app.handle` never reaches Bun's routes: it is the Elysia path, so each case below is
// sent both ways and must get the same status, headers and body.
let anvil: Anvil;
let td: TestDaemon;
let c: TestClient;
let elysiaOnly: ReturnType<typeof createServer>;
const LIMIT = 4096;

beforeAll(async () => {
  anvil = await startAnvil();
  td = await startTestDaemon({
    config: {
      server: { body_limit_bytes: LIMIT },
      networks: { eth: { family: "evm", decimals: 18, rpc_urls: [anvil.url] } },
    },
  });
  c = await td.client({ credits: 1_000_000, rpcRps: 1000 });
  elysiaOnly = createServer(td.daemon.deps);
});

afterAll(async () => {
  await td?.stop();
  await anvil?.stop();
});

type Answer = { status: number; contentType: string | null; allow: string | null; retryAfter: string | null; body: string };

async function answerOf(res: Response): Promise<Answer> {
  const h = res.headers;
  return { status: res.status, contentType: h.get("content-type"), allow: h.get("allow"), retryAfter: h.get("retry-after"), body: await res.text() };
}

/** The same request through the daemon's real server and through Elysia alone. */
async function bothWays(method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<{ served: Answer; elysia: Answer }> {
  const init = () => ({ method, body, headers: { "content-type": "application/json", ...headers } });
  const served = await answerOf(await fetch(`${td.url}${path}`, init()));
  const elysia = await answerOf(await elysiaOnly.handle(new Request(`http://127.0.0.1${path}`, init())));
  return { served, elysia };
}

const blockNumber = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "eth_blockNumber", params: [] });

describe("/rpc served by Bun's routes answers exactly as the Elysia route", () => {
  const cases: [string, string, () => string, string | undefined, (() => Record<string, string>) | undefined][] = [
    ["a call with the key in the path", "POST", () => `/rpc/eth/${c.apiKey}`, blockNumber, undefined],
    ["a call with the key in X-Api-Key", "POST", () => "/rpc/eth", blockNumber, () => ({ "x-api-key": c.apiKey })],
    ["a call with a query string", "POST", () => `/rpc/eth/${c.apiKey}?x=1`, blockNumber, undefined],
    ["a percent-encoded network", "POST", () => `/rpc/e%74h/${c.apiKey}`, blockNumber, undefined],
    ["no key (401)", "POST", () => "/rpc/eth", blockNumber, undefined],
    ["an unknown key (401)", "POST", () => "/rpc/eth/00000000-0000-4000-8000-000000000000", blockNumber, undefined],
    ["an unknown network (404 -32012)", "POST", () => `/rpc/nowhere/${c.apiKey}`, blockNumber, undefined],
    ["a body that is not JSON (400)", "POST", () => `/rpc/eth/${c.apiKey}`, "{nope", undefined],
    ["a body over server.body_limit_bytes (413)", "POST", () => `/rpc/eth/${c.apiKey}`, `[${" ".repeat(LIMIT)}]`, undefined],
    ["notifications alone (204)", "POST", () => `/rpc/eth/${c.apiKey}`, JSON.stringify({ jsonrpc: "2.0", method: "eth_blockNumber", params: [] }), undefined],
    ["GET on the path form (405)", "GET", () => `/rpc/eth/${c.apiKey}`, undefined, undefined],
    ["PUT on the header form (405)", "PUT", () => "/rpc/eth", blockNumber, undefined],
    ["DELETE (405)", "DELETE", () => `/rpc/eth/${c.apiKey}`, undefined, undefined],
    ["a trailing slash", "POST", () => "/rpc/eth/", blockNumber, () => ({ "x-api-key": c.apiKey })],
    ["a segment past the key", "POST", () => `/rpc/eth/${c.apiKey}/more`, blockNumber, undefined],
    ["another case of the route", "POST", () => `/RPC/eth/${c.apiKey}`, blockNumber, undefined],
  ];
  test.each(cases)("%s", async (_name, method, path, body, headers) => {
    const { served, elysia } = await bothWays(method, path(), body, headers?.());
    expect(served).toEqual(elysia);
  });

  test("a call forwarded through Bun's route answers the node's own bytes", async () => {
    const direct = await (await fetch(anvil.url, { method: "POST", headers: { "content-type": "application/json" }, body: blockNumber })).text();
    const res = await fetch(`${td.url}/rpc/eth/${c.apiKey}`, { method: "POST", headers: { "content-type": "application/json" }, body: blockNumber });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.text()).toBe(direct);
  });

  test("a doubled leading slash, which Bun's router would match, is left to Elysia's strict router: 404", async () => {
    // fetch() cleans the path up before sending; a raw request line keeps `//`.
    const port = new URL(td.url).port;
    const raw = await new Promise<string>((resolve, reject) => {
      let text = "";
      Bun.connect({
        hostname: "127.0.0.1",
        port: Number(port),
        socket: {
          open: (socket) => {
            socket.write(`POST //rpc/eth/${c.apiKey} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${blockNumber.length}\r\nConnection: close\r\n\r\n${blockNumber}`);
          },
          data: (_socket, data) => {
            text += new TextDecoder().decode(data);
          },
          close: () => resolve(text),
          error: (_socket, error) => reject(error),
        },
      }).catch(reject);
    });
    const { elysia } = await bothWays("POST", `//rpc/eth/${c.apiKey}`, blockNumber);
    expect(elysia.status).toBe(404);
    expect(raw.split("\r\n")[0]).toBe("HTTP/1.1 404 Not Found");
    expect(raw.endsWith(elysia.body)).toBe(true);
  });

  test("a method the route does not answer gets 405 with Allow: POST and the error envelope", async () => {
    const res = await fetch(`${td.url}/rpc/eth/${c.apiKey}`);
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
    expect(await res.json()).toEqual({ error: "Method not allowed." });
  });
});

describe("the request metrics count /rpc served by Bun's routes", () => {
  test("each form under its own route label, by status", async () => {
    const metric = async (route: string, status: number) => {
      const text = await (await fetch(`${td.url}/metrics`)).text();
      const line = text.split("\n").find((l) => l.startsWith(`chainwatch_http_requests_total{route="${route}",method="POST",status="${status}"} `));
      return line ? Number(line.split(" ").at(-1)) : 0;
    };
    const [path200, header200, header401] = [await metric("/rpc/:network/:api_key", 200), await metric("/rpc/:network", 200), await metric("/rpc/:network", 401)];
    const post = (path: string, headers: Record<string, string> = {}) =>
      fetch(`${td.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: blockNumber }).then((r) => r.text());
    await post(`/rpc/eth/${c.apiKey}`);
    await post(`/rpc/eth/${c.apiKey}`);
    await post("/rpc/eth", { "x-api-key": c.apiKey });
    await post("/rpc/eth");
    expect(await metric("/rpc/:network/:api_key", 200)).toBe(path200 + 2);
    expect(await metric("/rpc/:network", 200)).toBe(header200 + 1);
    expect(await metric("/rpc/:network", 401)).toBe(header401 + 1);
  });
});
