import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { revokeApiKey } from "../../src/accounts/api-keys.ts";
import { type Anvil, startAnvil } from "../support/anvil.ts";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { call, deadUpstreamUrl, eventually, postRpc, rpcError } from "./support.ts";

// Every row of docs/rpc.md's error table, with the request's id, against a real anvil node.
let anvil: Anvil;
let td: TestDaemon;
let c: TestClient;
let dead: string;

beforeAll(async () => {
  anvil = await startAnvil();
  dead = deadUpstreamUrl();
  td = await startTestDaemon({
    config: {
      networks: {
        eth: { family: "evm", decimals: 18, rpc_urls: [anvil.url] },
        // bsc ships without rpc_urls; btc and tron have a node but no method policy.
        btc: { family: "btc", decimals: 8, rpc_urls: [anvil.url] },
        tron: { family: "tron", decimals: 6, rpc_urls: [anvil.url] },
        failover: { family: "evm", decimals: 18, rpc_urls: [dead, anvil.url] },
        down: { family: "evm", decimals: 18, rpc_urls: [dead] },
      },
    },
  });
  c = await td.client({ credits: 1000, rpcRps: 1000 });
});

afterAll(async () => {
  await td?.stop();
  await anvil?.stop();
});

const rpc = (path: string, body: unknown, headers?: Record<string, string>) => postRpc(`${td.url}${path}`, body, headers);
const blockNumber = (id: number | string) => call(id, "eth_blockNumber");

describe("authentication (401 -32010, 403 -32011)", () => {
  test("no key at all answers 401 with the call's id", async () => {
    expect(await rpc("/rpc/eth", blockNumber(7))).toMatchObject({ status: 401, body: rpcError(7, -32010, "Invalid API key") });
  });

  test("an unknown key, in the path or the header, answers 401", async () => {
    const unknown = "00000000-0000-4000-8000-000000000000";
    expect(await rpc(`/rpc/eth/${unknown}`, blockNumber("a"))).toMatchObject({ status: 401, body: rpcError("a", -32010, "Invalid API key") });
    expect(await rpc("/rpc/eth", blockNumber(1), { "X-Api-Key": "not-a-key" })).toMatchObject({ status: 401, body: rpcError(1, -32010, "Invalid API key") });
  });

  test("a batch refused whole answers one error object with id null", async () => {
    const res = await rpc("/rpc/eth", [blockNumber(1), blockNumber("two"), { method: "broken" }]);
    expect(res.status).toBe(401);
    expect(res.body).toEqual(rpcError(null, -32010, "Invalid API key"));
  });

  test("a revoked key stops working within the key cache's second", async () => {
    const other = await td.client();
    expect((await rpc(`/rpc/eth/${other.apiKey}`, blockNumber(1))).status).toBe(402);
    await revokeApiKey(td.ctx.db, td.ctx.clock, other.apiKey);
    const res = await eventually(async () => {
      const r = await rpc(`/rpc/eth/${other.apiKey}`, blockNumber(2));
      return r.status === 401 ? r : undefined;
    });
    expect(res.body).toEqual(rpcError(2, -32010, "Invalid API key"));
  });

  test("a key whose allowlist does not hold the client IP answers 403, in both forms", async () => {
    const fenced = await td.client({ credits: 10, allowIps: ["10.0.0.0/8"] });
    expect(await rpc(`/rpc/eth/${fenced.apiKey}`, blockNumber(3))).toMatchObject({ status: 403, body: rpcError(3, -32011, "IP address not allowed.") });
    expect(await rpc("/rpc/eth", blockNumber(4), { "X-Api-Key": fenced.apiKey })).toMatchObject({ status: 403, body: rpcError(4, -32011, "IP address not allowed.") });
    const open = await td.client({ credits: 10, rpcRps: 10, allowIps: ["127.0.0.1/32"] });
    expect((await rpc(`/rpc/eth/${open.apiKey}`, blockNumber(5))).status).toBe(200);
  });
});

describe("a request refused whole answers one small error object, however large the batch", () => {
  // About 1 MB of empty objects, under server.body_limit_bytes: 349,000 elements.
  const flood = `[${Array.from({ length: 349_000 }, () => "{}").join(",")}]`;
  const unknownKey = "00000000-0000-4000-8000-000000000000";
  const send = async (path: string, body: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${td.url}${path}`, { method: "POST", body, headers: { "Content-Type": "application/json", ...headers } });
    return { status: res.status, text: await res.text() };
  };
  const one = (code: number, message: string) => JSON.stringify(rpcError(null, code, message));

  test("an unknown key, in the path or the header, or none", async () => {
    expect(flood.length).toBeGreaterThan(1_000_000);
    for (const [path, headers] of [[`/rpc/eth/${unknownKey}`, {}], ["/rpc/eth", { "X-Api-Key": unknownKey }], ["/rpc/eth", {}]] as const) {
      const res = await send(path, flood, headers);
      expect(res).toEqual({ status: 401, text: one(-32010, "Invalid API key") });
      expect(res.text.length).toBeLessThan(100);
    }
  });

  test("an IP outside the key's allowlist, and an unknown network", async () => {
    const fenced = await td.client({ credits: 10, allowIps: ["10.0.0.0/8"] });
    expect(await send(`/rpc/eth/${fenced.apiKey}`, flood)).toEqual({ status: 403, text: one(-32011, "IP address not allowed.") });
    expect(await send(`/rpc/nope/${c.apiKey}`, flood)).toEqual({ status: 404, text: one(-32012, "Unknown network: nope") });
  });

  test("a batch over 100 calls, and a body that is not JSON, with a valid key", async () => {
    expect(await send(`/rpc/eth/${c.apiKey}`, flood)).toEqual({ status: 400, text: one(-32600, "Invalid request: a batch of 349000 calls; at most 100.") });
    expect(await send(`/rpc/eth/${c.apiKey}`, flood.slice(0, -1))).toEqual({ status: 400, text: one(-32700, "Parse error: the body is not valid JSON.") });
  });
});

describe("networks (404 -32012)", () => {
  test.each([
    ["an unknown network", "nope", "Unknown network: nope"],
    ["a network without rpc_urls", "bsc", "Unknown network: bsc"],
    ["a network whose family has no method policy yet", "btc", "JSON-RPC is not available for network btc (family btc)"],
    ["a tron network, whose rpc_urls serve java-tron's HTTP API", "tron", "JSON-RPC is not available for network tron (family tron)"],
  ])("%s answers 404", async (_, network, message) => {
    expect(await rpc(`/rpc/${network}/${c.apiKey}`, blockNumber(9))).toMatchObject({
      status: 404,
      body: rpcError(9, -32012, message),
    });
  });
});

describe("request framing (400 -32700 / -32600)", () => {
  test("a body that is not JSON answers 400 -32700 with id null", async () => {
    expect(await rpc(`/rpc/eth/${c.apiKey}`, "{not json")).toMatchObject({
      status: 400,
      contentType: "application/json",
      body: rpcError(null, -32700, "Parse error: the body is not valid JSON."),
    });
  });

  test.each([
    [{ jsonrpc: "1.0", id: 3, method: "eth_blockNumber" }, 3, 'Invalid request: jsonrpc must be "2.0".'],
    [{ jsonrpc: "2.0", id: 4 }, 4, "Invalid request: method must be a non-empty string."],
    [{ jsonrpc: "2.0", id: 5, method: "eth_blockNumber", params: "x" }, 5, "Invalid request: params must be an array or an object."],
    [{ jsonrpc: "2.0", id: { x: 1 }, method: "eth_blockNumber" }, null, "Invalid request: id must be a string, a number or null."],
    ["42", null, "Invalid request: a call must be a JSON object."],
  ])("a single call %j answers 400 -32600", async (body, id, message) => {
    expect(await rpc(`/rpc/eth/${c.apiKey}`, typeof body === "string" ? body : body)).toMatchObject({ status: 400, body: rpcError(id, -32600, message) });
  });

  test("an empty batch answers 400 -32600", async () => {
    expect(await rpc(`/rpc/eth/${c.apiKey}`, [])).toMatchObject({ status: 400, body: rpcError(null, -32600, "Invalid request: an empty batch.") });
  });

  test("a batch of 101 calls answers 400 with one error object; 100 pass", async () => {
    const tooMany = await rpc(`/rpc/eth/${c.apiKey}`, Array.from({ length: 101 }, (_, i) => blockNumber(i)));
    expect(tooMany).toMatchObject({ status: 400, body: rpcError(null, -32600, "Invalid request: a batch of 101 calls; at most 100.") });
    const hundred = await rpc(`/rpc/eth/${c.apiKey}`, Array.from({ length: 100 }, (_, i) => blockNumber(i)));
    expect(hundred.status).toBe(200);
    expect(hundred.body.map((a: { id: number; result: string }) => [a.id, typeof a.result])).toEqual(Array.from({ length: 100 }, (_, i) => [i, "string"]));
  });

  test("a bad element inside a batch gets its own -32600 and the others are answered", async () => {
    const res = await rpc(`/rpc/eth/${c.apiKey}`, [blockNumber(1), { jsonrpc: "2.0", id: 2 }, 17, call(3, "eth_chainId")]);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { jsonrpc: "2.0", id: 1, result: expect.stringMatching(/^0x/) },
      rpcError(2, -32600, "Invalid request: method must be a non-empty string."),
      rpcError(null, -32600, "Invalid request: a call must be a JSON object."),
      { jsonrpc: "2.0", id: 3, result: "0x7a69" },
    ]);
  });

  test("a body over server.body_limit_bytes answers 413", async () => {
    const res = await rpc(`/rpc/eth/${c.apiKey}`, JSON.stringify(call(1, "eth_call", ["x".repeat(1_100_000)])));
    expect(res).toMatchObject({ status: 413, body: rpcError(null, -32600, "Request body exceeds 1048576 bytes.") });
  });
});

describe("method policy (200 -32601)", () => {
  test("eth_subscribe is refused with a message that says why and what to use instead", async () => {
    const res = await rpc(`/rpc/eth/${c.apiKey}`, call(12, "eth_subscribe", ["newHeads"]));
    expect(res.status).toBe(200);
    expect(res.body).toEqual(
      rpcError(12, -32601, "Method not allowed: eth_subscribe (subscriptions need a WebSocket and /rpc is HTTP only; poll eth_getLogs or eth_blockNumber)"),
    );
  });

  test("filters are refused with the reason, so a client knows to poll eth_getLogs", async () => {
    const res = await rpc(`/rpc/eth/${c.apiKey}`, call(14, "eth_newFilter", [{}]));
    expect(res).toMatchObject({
      status: 200,
      body: rpcError(14, -32601, "Method not allowed: eth_newFilter (filters live in one node's memory, which failover between rpc_urls loses; poll eth_getLogs)"),
    });
  });

  test("in a batch, a refused method is answered beside the allowed ones", async () => {
    const res = await rpc(`/rpc/eth/${c.apiKey}`, [call(1, "anvil_setBalance", [anvil.accounts[0], "0x0"]), call(2, "eth_getBalance", [anvil.accounts[3], "latest"])]);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([rpcError(1, -32601, "Method not allowed: anvil_setBalance"), { jsonrpc: "2.0", id: 2, result: "0x21e19e0c9bab2400000" }]);
  });

  test("an error answered by the node itself is passed through as the node sent it", async () => {
    const bad = call(13, "eth_getTransactionReceipt", ["0x12"]);
    const res = await fetch(`${td.url}/rpc/eth/${c.apiKey}`, { method: "POST", body: JSON.stringify(bad) });
    const direct = await fetch(anvil.url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(bad) });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(await direct.text());
  });
});

describe("upstreams (502 -32603, failover)", () => {
  test("a dead first upstream fails over to the next one, counted in /metrics without the URL's path", async () => {
    const res = await rpc(`/rpc/failover/${c.apiKey}`, call(21, "eth_chainId"));
    expect(res).toMatchObject({ status: 200, body: { jsonrpc: "2.0", id: 21, result: "0x7a69" } });
    const metrics = await (await fetch(`${td.url}/metrics`)).text();
    const label = new URL(dead).origin;
    expect(metrics).toContain(`chainwatch_upstream_errors_total{network="failover",upstream="${label}"} 1`);
    expect(metrics).not.toContain("secret-key");
  });

  test("when every upstream fails the call answers 502 -32603 with its id and costs nothing", async () => {
    const payer = await td.client({ credits: 50, rpcRps: 100 });
    expect(await rpc(`/rpc/down/${payer.apiKey}`, call(22, "eth_blockNumber"))).toMatchObject({
      status: 502,
      body: rpcError(22, -32603, "Upstream unavailable."),
    });
    const batch = await rpc(`/rpc/down/${payer.apiKey}`, [call(1, "eth_blockNumber"), call(2, "admin_peers")]);
    expect(batch.status).toBe(502);
    expect(batch.body).toEqual([rpcError(1, -32603, "Upstream unavailable."), rpcError(2, -32601, "Method not allowed: admin_peers")]);
    await td.daemon.deps.rpcMeter.flush();
    const account = (await td.ctx.db.selectFrom("accounts").select("credits").where("id", "=", payer.accountId).executeTakeFirstOrThrow()).credits;
    expect(Number(account)).toBe(50);
  });
});

describe("OpenAPI", () => {
  test("documents both forms of the route, the path form without the X-Api-Key scheme", async () => {
    const doc = (await (await fetch(`${td.url}/openapi/json`)).json()) as { paths: Record<string, { post?: { summary?: string; security?: unknown[]; tags?: string[] } }> };
    const header = doc.paths["/rpc/{network}"]?.post;
    const path = doc.paths["/rpc/{network}/{api_key}"]?.post;
    expect(header).toMatchObject({ summary: "JSON-RPC endpoint (key in X-Api-Key)", tags: ["json-rpc"], security: [{ ApiKey: [] }] });
    expect(path).toMatchObject({ summary: "JSON-RPC endpoint (key in the path)", tags: ["json-rpc"], security: [] });
  });
});
