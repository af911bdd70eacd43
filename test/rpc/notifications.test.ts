import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Server } from "bun";
import { type Anvil, startAnvil } from "../support/anvil.ts";
import { manualClock } from "../support/clock.ts";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { call, deadUpstreamUrl } from "./support.ts";

// JSON-RPC notifications (calls without an `id`): forwarded, billed like calls, never answered,
// and not taken for a broken node when it answers them with nothing (anvil: 204; geth: 200 and
// an empty body). A recording hop in front of anvil shows what reached the node.
let anvil: Anvil;
let hop: Server<undefined>;
let td: TestDaemon;
let networks: Record<string, unknown>;
const received: string[] = [];

beforeAll(async () => {
  anvil = await startAnvil();
  hop = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const body = await req.text();
      received.push(body);
      const res = await fetch(anvil.url, { method: "POST", headers: { "Content-Type": "application/json" }, body });
      // geth answers notifications with 200 and nothing; anvil with 204.
      if (new URL(req.url).pathname === "/geth" && res.status === 204) return new Response("", { status: 200 });
      return new Response(await res.text(), { status: res.status, headers: { "Content-Type": "application/json" } });
    },
  });
  networks = {
    eth: { family: "evm", decimals: 18, rpc_urls: [hop.url.href] },
    geth: { family: "evm", decimals: 18, rpc_urls: [`${hop.url.href}geth`] },
    down: { family: "evm", decimals: 18, rpc_urls: [deadUpstreamUrl()] },
  };
  td = await startTestDaemon({ config: { networks } });
});

afterAll(async () => {
  await td?.stop();
  hop?.stop(true);
  await anvil?.stop();
});

const notification = (method: string, params: unknown[] = []) => ({ jsonrpc: "2.0", method, params });

async function send(c: TestClient, body: unknown, network = "eth", on: TestDaemon = td) {
  const res = await fetch(`${on.url}/rpc/${network}/${c.apiKey}`, { method: "POST", body: JSON.stringify(body) });
  return { status: res.status, contentType: res.headers.get("content-type"), retryAfter: res.headers.get("retry-after"), text: await res.text() };
}

async function billed(c: TestClient) {
  await td.daemon.deps.rpcMeter.flush();
  const account = await td.ctx.db.selectFrom("accounts").select("credits").where("id", "=", c.accountId).executeTakeFirstOrThrow();
  const usage = await td.ctx.db.selectFrom("usage_daily").select("rpc_calls").where("account_id", "=", c.accountId).executeTakeFirst();
  return { credits: Number(account.credits), rpcCalls: Number(usage?.rpc_calls ?? 0) };
}

describe("notifications", () => {
  test.each(["eth", "geth"])("one alone is forwarded and billed, and answers 204 with no body; the node (%s-style) stays healthy", async (network) => {
    const c = await td.client({ credits: 10, rpcRps: 100 });
    received.length = 0;
    const body = notification("eth_blockNumber");
    expect(await send(c, body, network)).toEqual({ status: 204, contentType: null, retryAfter: null, text: "" });
    expect(received).toEqual([JSON.stringify(body)]);
    expect(await billed(c)).toEqual({ credits: 9, rpcCalls: 1 });
    expect(td.daemon.deps.upstreams.get(network)?.states()).toEqual([{ label: hop.url.origin, healthy: true, failures: 0, errors: 0, downUntilMs: 0, lastError: null }]);
  });

  test("in a batch they are billed and left out of the answer; notifications alone answer 204", async () => {
    const c = await td.client({ credits: 10, rpcRps: 100 });
    received.length = 0;
    const mixed = await send(c, [notification("eth_blockNumber"), call(1, "eth_chainId"), notification("eth_gasPrice")]);
    expect(mixed).toMatchObject({ status: 200, contentType: "application/json" });
    expect(JSON.parse(mixed.text)).toEqual([{ jsonrpc: "2.0", id: 1, result: "0x7a69" }]);
    expect(await send(c, [notification("eth_blockNumber"), notification("eth_blockNumber")])).toMatchObject({ status: 204, text: "" });
    expect(received).toHaveLength(2);
    expect(await billed(c)).toEqual({ credits: 5, rpcCalls: 5 });
  });

  test("eth_chainId and net_version as notifications, before the cache knows them, are forwarded like the others", async () => {
    const c = await td.client({ credits: 10, rpcRps: 100 });
    expect(await send(c, [notification("eth_chainId"), notification("net_version")], "geth")).toMatchObject({ status: 204, text: "" });
    expect(await send(c, call(1, "eth_chainId"), "geth")).toMatchObject({ status: 200, text: '{"jsonrpc":"2.0","id":1,"result":"0x7a69"}' });
  });

  test("a call with id null is a call, and is answered", async () => {
    const c = await td.client({ credits: 10, rpcRps: 100 });
    const res = await send(c, call(null, "eth_chainId"));
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toEqual({ jsonrpc: "2.0", id: null, result: "0x7a69" });
  });

  test("a refused one is not forwarded or billed, and answers 204 like any notification", async () => {
    const c = await td.client({ credits: 10, rpcRps: 100 });
    received.length = 0;
    expect(await send(c, notification("evm_mine"))).toMatchObject({ status: 204, text: "" });
    expect(received).toEqual([]);
    expect(await billed(c)).toEqual({ credits: 10, rpcCalls: 0 });
  });

  test("when it cannot be carried out, the status alone says why: 502, 429 with Retry-After, 402", async () => {
    // A daemon on a clock held still: the three calls fall in one second of rpc_rps however long
    // each takes on a loaded machine (on the real clock, calls spread over more than a second
    // would let the third through).
    const still = await startTestDaemon({ clock: manualClock(), config: { networks } });
    try {
      const c = await still.client({ credits: 10, rpcRps: 2 });
      expect(await send(c, notification("eth_blockNumber"), "down", still)).toEqual({ status: 502, contentType: null, retryAfter: null, text: "" });
      expect(await send(c, notification("eth_blockNumber"), "eth", still)).toMatchObject({ status: 204 });
      expect(await send(c, notification("eth_blockNumber"), "eth", still)).toEqual({ status: 429, contentType: null, retryAfter: "1", text: "" });
      const broke = await still.client({ credits: 0, rpcRps: 10 });
      expect(await send(broke, notification("eth_blockNumber"), "eth", still)).toMatchObject({ status: 402, text: "" });
    } finally {
      await still.stop();
    }
  });
});
