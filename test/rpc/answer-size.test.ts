import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { type HostileNode, startHostileNode } from "../support/hostile-node.ts";
import { call, postRpc, rpcError } from "./support.ts";

// Upstream answers are capped at the network's max_response_bytes while they are read, and the
// size of what passes is priced: a node (hostile, misconfigured, or asked for a huge eth_getLogs
// range) can neither fill the daemon's memory nor hand out megabytes for the price of one call.
const MiB = 1024 * 1024;
const TOO_LARGE = "Upstream answer exceeds max_response_bytes (1048576 bytes).";

let node: HostileNode;
let td: TestDaemon;
let c: TestClient;

beforeAll(async () => {
  node = startHostileNode();
  const net = (path: string, maxBytes: number) => ({ family: "evm", decimals: 18, rpc_urls: [`${node.url}${path}`], max_response_bytes: maxBytes });
  td = await startTestDaemon({
    config: {
      networks: {
        exact: net(`/${MiB}/length`, MiB),
        over: net(`/${MiB + 1}/length`, MiB),
        streamed: net(`/${50 * MiB}/chunked`, MiB),
        inflated: net(`/${40 * MiB}/gzip`, MiB),
        // 2.5 MiB answers under a 4 MiB cap: two credits more than the call's price.
        large: net(`/${2.5 * MiB}/length`, 4 * MiB),
      },
    },
  });
  c = await td.client({ credits: 1000, rpcRps: 1000 });
});

afterAll(async () => {
  await td?.stop();
  node?.stop();
});

async function credits(account: TestClient): Promise<number> {
  await td.daemon.deps.rpcMeter.flush();
  return Number((await td.ctx.db.selectFrom("accounts").select("credits").where("id", "=", account.accountId).executeTakeFirstOrThrow()).credits);
}

describe("max_response_bytes", () => {
  test("an answer of exactly max_response_bytes passes as the node sent it", async () => {
    const res = await fetch(`${td.url}/rpc/exact/${c.apiKey}`, { method: "POST", body: JSON.stringify(call(1, "eth_blockNumber")) });
    expect(res.status).toBe(200);
    expect((await res.arrayBuffer()).byteLength).toBe(MiB);
  });

  test.each([
    ["one byte more, with a Content-Length", "over"],
    ["a 50 MiB stream without a length", "streamed"],
    ["a small gzip body that inflates to 40 MiB", "inflated"],
  ])("%s answers 502 -32603 naming the limit, costs nothing and leaves the node healthy", async (_, network) => {
    const payer = await td.client({ credits: 100, rpcRps: 10_000 });
    expect(await postRpc(`${td.url}/rpc/${network}/${payer.apiKey}`, call(7, "eth_getLogs", [{}]))).toMatchObject({ status: 502, body: rpcError(7, -32603, TOO_LARGE) });
    const batch = await postRpc(`${td.url}/rpc/${network}/${payer.apiKey}`, [call(1, "eth_blockNumber"), call(2, "eth_chainId")]);
    expect(batch).toMatchObject({ status: 502, body: [rpcError(1, -32603, TOO_LARGE), rpcError(2, -32603, TOO_LARGE)] });
    expect(await credits(payer)).toBe(100);
    // The request's failure, not the node's: no backoff, no failover, no upstream error counted.
    expect(td.daemon.deps.upstreams.get(network)?.states()[0]).toMatchObject({ healthy: true, failures: 0, errors: 0 });
    const metrics = await (await fetch(`${td.url}/metrics`)).text();
    const tooLarge = [...metrics.matchAll(new RegExp(`chainwatch_rpc_calls_total\\{network="${network}",method="[^"]+",outcome="too_large"\\} (\\d+)`, "g"))];
    expect(tooLarge.reduce((n, m) => n + Number(m[1]), 0)).toBe(3);
    expect(metrics).not.toContain(`chainwatch_upstream_errors_total{network="${network}"`);
  });

  test("a streamed answer is given up soon after the limit, not read to its end", async () => {
    // Two requests above asked for the 50 MiB stream; each stopped a few socket buffers past 1 MiB
    // (about 5 MiB each here), so together they took less than one whole stream.
    expect(node.bytesSent()).toBeGreaterThan(2 * MiB);
    expect(node.bytesSent()).toBeLessThan(50 * MiB);
  });
});

describe("answers are priced by size too", () => {
  test("a 2.5 MiB answer costs its method's price plus 2 (one per whole MiB)", async () => {
    const payer = await td.client({ credits: 100, rpcRps: 10_000 });
    const res = await fetch(`${td.url}/rpc/large/${payer.apiKey}`, { method: "POST", body: JSON.stringify(call(1, "eth_getLogs", [{}])) });
    expect(res.status).toBe(200);
    expect((await res.arrayBuffer()).byteLength).toBe(2.5 * MiB);
    expect(await credits(payer)).toBe(100 - 10 - 2);
    const usage = await td.ctx.db.selectFrom("usage_daily").select(["credits", "rpc_calls"]).where("account_id", "=", payer.accountId).executeTakeFirstOrThrow();
    expect(usage).toEqual({ credits: 12, rpc_calls: 1 });
  });

  test("an answer whose size the credits cannot pay is withheld: 402 -32013, nothing charged", async () => {
    const payer = await td.client({ credits: 11, rpcRps: 10_000 });
    expect(await postRpc(`${td.url}/rpc/large/${payer.apiKey}`, call(3, "eth_getLogs", [{}]))).toMatchObject({
      status: 402,
      body: rpcError(3, -32013, "Insufficient credits."),
    });
    expect(await credits(payer)).toBe(11);
  });
});
