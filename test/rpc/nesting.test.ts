import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { type HostileNode, startHostileNode } from "../support/hostile-node.ts";
import { rawExchange } from "../support/raw-http.ts";
import { call, postRpc, rpcError } from "./support.ts";

// JSON.parse builds every level of `[[[…` before it returns or fails, so JSON nested deeper than
// 64 levels is refused before it is parsed: a client's body (400 -32600), a node's answer (an
// upstream error, failed over like any other). And a refusal made before the key is known reads
// the request's id only from a small, shallow body.

const TOO_DEEP = "Invalid request: JSON nested deeper than 64 levels.";
const UNKNOWN_KEY = "00000000-0000-4000-8000-000000000000";

let node: HostileNode;
let other: HostileNode;
let td: TestDaemon;
let c: TestClient;

beforeAll(async () => {
  node = startHostileNode();
  other = startHostileNode();
  const net = (...urls: string[]) => ({ family: "evm", decimals: 18, rpc_urls: urls });
  td = await startTestDaemon({
    config: {
      networks: {
        // Answers whose result nests 63 arrays (64 levels with the answer object), and 64 (65).
        deep63: net(`${node.url}/63/deep`),
        deep64: net(`${node.url}/64/deep`),
        failover: net(`${node.url}/100000/deep`, `${other.url}/1/deep`),
      },
    },
  });
  c = await td.client({ credits: 1000, rpcRps: 1000 });
});

afterAll(async () => {
  await td?.stop();
  node?.stop();
  other?.stop();
});

/** A call whose params nest `levels - 1` arrays: `levels` levels with the call object. */
const nested = (id: number, levels: number) => `{"jsonrpc":"2.0","id":${id},"method":"eth_call","params":${"[".repeat(levels - 1)}${"]".repeat(levels - 1)}}`;
const raw = async (path: string, body: string, headers: Record<string, string> = {}) => {
  const res = await fetch(`${td.url}${path}`, { method: "POST", body, headers: { "Content-Type": "application/json", ...headers } });
  return { status: res.status, text: await res.text() };
};

describe("a client's body", () => {
  test("nesting 65 levels answers 400 -32600 with id null; 64 levels go upstream", async () => {
    expect(await postRpc(`${td.url}/rpc/deep63/${c.apiKey}`, nested(1, 65))).toMatchObject({ status: 400, body: rpcError(null, -32600, TOO_DEEP) });
    expect(await postRpc(`${td.url}/rpc/deep63/${c.apiKey}`, `[${nested(1, 64)}]`)).toMatchObject({ status: 400, body: rpcError(null, -32600, TOO_DEEP) });
    const passed = await postRpc(`${td.url}/rpc/deep63/${c.apiKey}`, nested(2, 64));
    expect(passed).toMatchObject({ status: 200, body: { jsonrpc: "2.0", id: 2 } });
  });

  test("a megabyte of nesting answers the same 400", async () => {
    const body = `{"jsonrpc":"2.0","id":1,"method":"eth_call","params":${"[".repeat(1_000_000)}`;
    expect(await raw(`/rpc/deep63/${c.apiKey}`, body)).toEqual({ status: 400, text: JSON.stringify(rpcError(null, -32600, TOO_DEEP)) });
  });
});

describe("a refusal before the key is known reads no large or deep body", () => {
  const refused = JSON.stringify(rpcError(null, -32010, "Invalid API key"));

  test.each([
    ["a call of 1 MB (over 4096 characters)", JSON.stringify(call(7, "eth_call", [{ data: `0x${"ab".repeat(500_000)}` }]))],
    ["a 1 MB body of nesting", `{"jsonrpc":"2.0","id":7,"method":"eth_call","params":${"[".repeat(500_000)}${"]".repeat(500_000)}}`],
    ["a small call nesting 65 levels", nested(7, 65)],
  ])("%s answers the fixed 401 with id null: its id was never read", async (_, body) => {
    for (const headers of [{}, { "X-Api-Key": UNKNOWN_KEY }] as Record<string, string>[]) {
      expect(await raw("/rpc/deep63", body, headers)).toEqual({ status: 401, text: refused });
    }
  });
});

describe("a stranger's body is not read", () => {
  test("a 1 MiB body declared and cut short after 64 KiB is answered 401 at once, without waiting for the rest", async () => {
    const { host } = new URL(td.url);
    for (const key of [null, UNKNOWN_KEY]) {
      const head = ["POST /rpc/deep63 HTTP/1.1", `Host: ${host}`, "Content-Type: application/json", "Content-Length: 1048576"];
      if (key) head.push(`X-Api-Key: ${key}`);
      const answer = await rawExchange(td.url, `${head.join("\r\n")}\r\n\r\n${"[".repeat(64 * 1024)}`);
      expect([key, answer.status, JSON.parse(answer.body)]).toEqual([key, 401, rpcError(null, -32010, "Invalid API key")]);
    }
  });

  test("a body over the limit sent with a known key is still 413", async () => {
    expect(await raw(`/rpc/deep63/${c.apiKey}`, "x".repeat(1_048_577))).toEqual({
      status: 413,
      text: JSON.stringify(rpcError(null, -32600, "Request body exceeds 1048576 bytes.")),
    });
  });
});

describe("a node's answer", () => {
  test("nesting 65 levels is an upstream error: 502 -32603, the node put into backoff; 64 levels pass", async () => {
    const ok = await postRpc(`${td.url}/rpc/deep63/${c.apiKey}`, call(3, "eth_blockNumber"));
    expect(ok).toMatchObject({ status: 200, body: { jsonrpc: "2.0", id: 3 } });
    expect(JSON.stringify(ok.body.result)).toBe(`${"[".repeat(63)}${"]".repeat(63)}`);

    expect(await postRpc(`${td.url}/rpc/deep64/${c.apiKey}`, call(4, "eth_blockNumber"))).toMatchObject({
      status: 502,
      body: rpcError(4, -32603, "Upstream unavailable."),
    });
    expect(td.daemon.deps.upstreams.get("deep64")?.states()[0]).toMatchObject({
      healthy: false,
      errors: 1,
      lastError: "answered with JSON nested deeper than 64 levels",
    });
  });

  test("a deep answer fails over to the next upstream, which answers", async () => {
    const res = await postRpc(`${td.url}/rpc/failover/${c.apiKey}`, [call(5, "eth_blockNumber"), call(6, "eth_gasPrice")]);
    expect(res).toMatchObject({
      status: 200,
      body: [
        { jsonrpc: "2.0", id: 5, result: [] },
        { jsonrpc: "2.0", id: 6, result: [] },
      ],
    });
    const [deep, next] = td.daemon.deps.upstreams.get("failover")?.states() ?? [];
    expect(deep).toMatchObject({ healthy: false, errors: 1, lastError: "answered with JSON nested deeper than 64 levels" });
    expect(next).toMatchObject({ healthy: true, errors: 0 });
  });
});
