import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { type HostileNode, startHostileNode } from "../support/hostile-node.ts";
import { call, postRpc, rpcError } from "./support.ts";

// A node's errors pass through /rpc, and a node may echo what it was sent: the credentials of the
// rpc_urls entry and the key in its path. Those reach the client as [redacted].

const KEY = "0123456789abcdef0123456789abcdef";
const SECRETS = [KEY, "rpcuser", "pa55-w0rd", btoa("rpcuser:pa55-w0rd")];

let node: HostileNode;
let td: TestDaemon;
let c: TestClient;
let port: string;

beforeAll(async () => {
  node = startHostileNode();
  port = new URL(node.url).port;
  td = await startTestDaemon({
    config: {
      networks: {
        echo: { family: "evm", decimals: 18, rpc_urls: [`http://rpcuser:pa55-w0rd@127.0.0.1:${port}/v3/${KEY}/echo`] },
        // Answers a batch with one error object, which /rpc copies to each call.
        one: { family: "evm", decimals: 18, rpc_urls: [`http://rpcuser:pa55-w0rd@127.0.0.1:${port}/v3/${KEY}/echo-one`] },
      },
    },
  });
  c = await td.client({ credits: 1000, rpcRps: 1000 });
});

afterAll(async () => {
  await td?.stop();
  node?.stop();
});

/** The node's error for one call, as the client receives it. */
const echoed = (id: number, mode = "echo") => ({
  jsonrpc: "2.0",
  id,
  error: {
    code: -32000,
    message: `refused http://127.0.0.1:${port}/v3/[redacted]/${mode}: key null, authorization Basic [redacted] ([redacted]:[redacted])`,
    data: { credentials: "[redacted]:[redacted]" },
  },
  Error: `refused http://127.0.0.1:${port}/v3/[redacted]/${mode}: key null, authorization Basic [redacted] ([redacted]:[redacted])`,
});

describe("a node's error echoing the upstream's credentials and key", () => {
  test("reaches the client redacted, for a call and a batch", async () => {
    const one = await fetch(`${td.url}/rpc/echo/${c.apiKey}`, { method: "POST", body: JSON.stringify(call(1, "eth_blockNumber")) });
    const text = await one.text();
    expect(one.status).toBe(200);
    expect(JSON.parse(text)).toEqual(echoed(1));
    const batch = await postRpc(`${td.url}/rpc/echo/${c.apiKey}`, [call(2, "eth_blockNumber"), call(3, "eth_sign"), call(4, "eth_gasPrice")]);
    expect(batch.body).toEqual([echoed(2), rpcError(3, -32601, "Method not allowed: eth_sign"), echoed(4)]);
    for (const secret of SECRETS) expect(text + JSON.stringify(batch.body)).not.toContain(secret);
  });

  test("reaches every call redacted when the node answers a batch with one error object", async () => {
    const batch = await postRpc(`${td.url}/rpc/one/${c.apiKey}`, [call(5, "eth_blockNumber"), call(6, "eth_gasPrice")]);
    expect(batch.body).toEqual([echoed(5, "echo-one"), echoed(6, "echo-one")]);
    for (const secret of SECRETS) expect(JSON.stringify(batch.body)).not.toContain(secret);
  });
});
