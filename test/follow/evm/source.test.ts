import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Address, encodeFunctionData, type Hash } from "viem";
import { foundry } from "viem/chains";
import { type Db, migrate, openDatabase } from "../../../src/db/database.ts";
import { ingestedBlockOf } from "../../../src/follow/evm/block.ts";
import { createEvmSource } from "../../../src/follow/evm/source.ts";
import type { FetchedBlock } from "../../../src/follow/evm/block.ts";
import { createRpcClient } from "../../../src/follow/evm/client.ts";
import { createTokenDecimals } from "../../../src/follow/evm/decimals.ts";
import { systemClock } from "../../../src/lib/clock.ts";
import { silentLogger } from "../../../src/lib/log.ts";
import { createUpstreamPool } from "../../../src/upstream/pool.ts";
import { type Anvil, startAnvil } from "../../support/anvil.ts";
import { testTokenAbi, testTokenBytecode } from "../../support/contracts/test-token.ts";
import { feedBlockOf } from "../../support/feed-block.ts";

// The EVM source and block conversion against a real anvil node.

let anvil: Anvil;
let dir: string;
let db: Db;
let token: Address;
// A JSON-RPC proxy in front of anvil that answers eth_getBlockReceipts like a node without it.
let proxy: ReturnType<typeof Bun.serve>;
const proxied: string[] = [];

const W = "0x000000000000000000000000000000000000beef" as Address;

function rpcFor(url: string, maxResponseBytes?: number) {
  return createRpcClient(createUpstreamPool({ network: "anv", urls: [url], timeoutMs: 5000, maxResponseBytes, fetch, clock: systemClock, log: silentLogger }));
}

beforeAll(async () => {
  anvil = await startAnvil();
  dir = mkdtempSync(join(tmpdir(), "chainwatch-evm-"));
  db = openDatabase(join(dir, "cw.db"));
  const migrated = await migrate(db);
  if (!migrated.ok) throw new Error(migrated.error);
  const deploy = await anvil.wallet.deployContract({ abi: testTokenAbi, bytecode: testTokenBytecode, args: [6, 1_000_000_000_000n], account: anvil.accounts[0], chain: foundry });
  const receipt = await anvil.public.waitForTransactionReceipt({ hash: deploy });
  token = receipt.contractAddress as Address;
  proxy = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const calls = (await req.json()) as Call | Call[];
      for (const c of [calls].flat()) proxied.push(c.method);
      const answer = (c: Call) =>
        c.method === "eth_getBlockReceipts" ? { jsonrpc: "2.0", id: c.id, error: { code: -32601, message: "the method eth_getBlockReceipts does not exist/is not available" } } : anvilAnswer(c);
      return Response.json(Array.isArray(calls) ? await Promise.all(calls.map(answer)) : await answer(calls));
    },
  });
});

type Call = { jsonrpc: string; id: number; method: string; params: unknown[] };

/** Anvil's own answer to one call. */
async function anvilAnswer(call: Call): Promise<{ id: number; result?: unknown; error?: unknown }> {
  const res = await fetch(anvil.url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(call) });
  return (await res.json()) as { id: number; result?: unknown };
}

/**
 * A JSON-RPC proxy in front of anvil that answers each request (one call, or a batch) as `answer`
 * does, and records the methods of each request.
 */
function recordingProxy(answer: (calls: Call | Call[]) => Promise<Response>) {
  const requests: string[][] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const calls = (await req.json()) as Call | Call[];
      requests.push([calls].flat().map((c) => c.method));
      return answer(calls);
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, requests, stop: () => server.stop(true) };
}

/**
 * Reads the block at `height` twice through `proxy`, whose batches fail: the same receipts as
 * `direct` each time, and a batch only once, then the block and its receipts one request each.
 */
async function expectBatchesOff(proxy: { url: string; requests: string[][] }, height: number, direct: FetchedBlock | null, maxResponseBytes?: number) {
  const source = createEvmSource(rpcFor(proxy.url, maxResponseBytes));
  expect((await source.fetch(height))?.receipts).toEqual(direct?.receipts as never);
  expect((await source.fetch(height))?.receipts).toEqual(direct?.receipts as never);
  expect(proxy.requests).toEqual([["eth_getBlockByNumber", "eth_getBlockReceipts"], ["eth_getBlockByNumber"], ["eth_getBlockReceipts"], ["eth_getBlockByNumber"], ["eth_getBlockReceipts"]]);
}

/** A recording proxy answering each call as `change` makes anvil's answer (the answer as it is when `change` gives it back). */
function changingProxy(change: (call: Call, answer: { id: number; result?: unknown; error?: unknown }) => object) {
  const answer = async (c: Call) => change(c, await anvilAnswer(c));
  return recordingProxy(async (calls) => Response.json(Array.isArray(calls) ? await Promise.all(calls.map(answer)) : await answer(calls)));
}
afterAll(async () => {
  proxy.stop(true);
  await anvil.stop();
  await db.destroy();
  rmSync(dir, { recursive: true, force: true });
});

/** Mines one block holding an ETH transfer, an ERC-20 transfer and a reverted payAndFail, all to W. */
async function mixedBlock(): Promise<{ height: number; eth: Hash; erc20: Hash; failed: Hash }> {
  await anvil.test.setAutomine(false);
  const from = anvil.accounts[0];
  const eth = await anvil.sendEth(from, W, 1_500_000_000_000_000_000n);
  const erc20 = await anvil.wallet.sendTransaction({ account: from, chain: foundry, to: token, data: encodeFunctionData({ abi: testTokenAbi, functionName: "transfer", args: [W, 2_500_000n] }) });
  const failed = await anvil.wallet.sendTransaction({
    account: from,
    chain: foundry,
    to: token,
    value: 7n,
    gas: 200_000n,
    data: encodeFunctionData({ abi: testTokenAbi, functionName: "payAndFail", args: [W, 1_000_000n] }),
  });
  await anvil.test.mine({ blocks: 1 });
  await anvil.test.setAutomine(true);
  return { height: await anvil.mined(eth), eth, erc20, failed };
}

describe("EVM source and block conversion", () => {
  test("a block becomes the docs/chains.md shape: ETH value, ERC-20 transfer with decimals, reverted tx moving nothing", async () => {
    const { height, eth, erc20, failed } = await mixedBlock();
    const rpc = rpcFor(anvil.url);
    const source = createEvmSource(rpc);
    const fetched = await source.fetch(height);
    if (!fetched) throw new Error("no block");
    const decimals = createTokenDecimals({ db, clock: systemClock, network: "anv", tokens: {}, rpc });
    await decimals.resolve([token.toLowerCase()]);
    const block = feedBlockOf(ingestedBlockOf("anv", fetched, decimals.decimalsOf), "evm");
    const parent = await anvil.public.getBlock({ blockNumber: BigInt(height - 1) });
    expect(block.network).toBe("anv");
    expect(block.height).toBe(height);
    expect(block.hash).toBe(fetched.hash);
    expect(block.parent_hash).toBe(parent.hash);
    const from = anvil.accounts[0].toLowerCase();
    expect(block.transactions).toEqual([
      { hash: eth, from, to: W, value: "1500000000000000000" },
      { hash: erc20, from, to: token.toLowerCase(), value: "0", transfers: [{ asset: token.toLowerCase(), from, to: W, value: "2500000", decimals: 6 }] },
      { hash: failed, from, to: token.toLowerCase(), value: "0" },
    ]);
  });

  test("without eth_getBlockReceipts the receipts come from batched eth_getTransactionReceipt calls, with the same result", async () => {
    const { height } = await mixedBlock();
    const direct = await createEvmSource(rpcFor(anvil.url)).fetch(height);
    proxied.length = 0;
    const viaProxy = createEvmSource(rpcFor(`http://127.0.0.1:${proxy.port}`));
    const fetched = await viaProxy.fetch(height);
    // Asked by number beside the block, then by the block's hash, then per transaction.
    expect(proxied).toEqual(["eth_getBlockByNumber", "eth_getBlockReceipts", "eth_getBlockReceipts", "eth_getTransactionReceipt", "eth_getTransactionReceipt", "eth_getTransactionReceipt"]);
    expect(fetched?.receipts).toEqual(direct?.receipts as never);
    // The source remembers: the next block goes straight to per-transaction receipts.
    proxied.length = 0;
    await viaProxy.fetch(height);
    expect(proxied).toEqual(["eth_getBlockByNumber", "eth_getTransactionReceipt", "eth_getTransactionReceipt", "eth_getTransactionReceipt"]);
  });

  test("a block and its receipts are one request, by the block's number", async () => {
    const { height } = await mixedBlock();
    const counted = changingProxy((_, answer) => answer);
    try {
      const fetched = await createEvmSource(rpcFor(counted.url)).fetch(height);
      expect(counted.requests).toEqual([["eth_getBlockByNumber", "eth_getBlockReceipts"]]);
      const receipts = await anvil.rpc<unknown[]>("eth_getBlockReceipts", [fetched?.hash]);
      expect(fetched?.receipts).toEqual(receipts as never);
    } finally {
      counted.stop();
    }
  });

  test("receipts by number that are another block's (a reorg between the two calls) are asked again by the block's hash", async () => {
    const { height } = await mixedBlock();
    const direct = await createEvmSource(rpcFor(anvil.url)).fetch(height);
    const other = `0x${"ab".repeat(32)}`;
    // The answer by number names another block; the one by hash is the node's own.
    const reorged = changingProxy((call, answer) =>
      call.method === "eth_getBlockReceipts" && call.params[0] === `0x${height.toString(16)}` ? { ...answer, result: (answer.result as object[]).map((r) => ({ ...r, blockHash: other })) } : answer,
    );
    try {
      const source = createEvmSource(rpcFor(reorged.url));
      const fetched = await source.fetch(height);
      expect(reorged.requests).toEqual([["eth_getBlockByNumber", "eth_getBlockReceipts"], ["eth_getBlockReceipts"]]);
      expect(fetched?.receipts).toEqual(direct?.receipts as never);
      // Only those receipts were asked again: the next block's go by number as before.
      reorged.requests.length = 0;
      await source.fetch(height - 1);
      expect(reorged.requests).toEqual([["eth_getBlockByNumber", "eth_getBlockReceipts"]]);
    } finally {
      reorged.stop();
    }
  });

  test("a node that takes eth_getBlockReceipts by hash only is asked by hash from then on", async () => {
    const { height } = await mixedBlock();
    const direct = await createEvmSource(rpcFor(anvil.url)).fetch(height);
    const hashOnly = changingProxy((call, answer) =>
      call.method === "eth_getBlockReceipts" && String(call.params[0]).length !== 66 ? { jsonrpc: "2.0", id: call.id, error: { code: -32602, message: "invalid argument 0: hex string has length 2, want 64 for common.Hash" } } : answer,
    );
    try {
      const source = createEvmSource(rpcFor(hashOnly.url));
      expect((await source.fetch(height))?.receipts).toEqual(direct?.receipts as never);
      expect((await source.fetch(height))?.receipts).toEqual(direct?.receipts as never);
      expect(hashOnly.requests).toEqual([["eth_getBlockByNumber", "eth_getBlockReceipts"], ["eth_getBlockReceipts"], ["eth_getBlockByNumber"], ["eth_getBlockReceipts"]]);
    } finally {
      hashOnly.stop();
    }
  });

  test("an upstream that refuses batches gets the block and its receipts one request each, and no batch after the first", async () => {
    const { height } = await mixedBlock();
    const direct = await createEvmSource(rpcFor(anvil.url)).fetch(height);
    // Two ways a provider refuses a batch: a JSON-RPC error object (HTTP 200), or HTTP 400.
    for (const refusal of [() => Response.json({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "batch requests are not supported" } }), () => new Response("batch too large", { status: 400 })]) {
      const noBatches = recordingProxy(async (calls) => (Array.isArray(calls) ? refusal() : Response.json(await anvilAnswer(calls))));
      try {
        await expectBatchesOff(noBatches, height, direct);
      } finally {
        noBatches.stop();
      }
    }
  });

  test("a batch answer over max_response_bytes where the block's own is not: a request each from then on", async () => {
    const { height } = await mixedBlock();
    const direct = await createEvmSource(rpcFor(anvil.url)).fetch(height);
    const limit = 64 * 1024;
    // Pads a batch's answer past the limit with JSON whitespace; a single call's answer is left as it is.
    const padding = recordingProxy(async (calls) =>
      Array.isArray(calls)
        ? new Response(JSON.stringify(await Promise.all(calls.map(anvilAnswer))) + " ".repeat(limit), { headers: { "Content-Type": "application/json" } })
        : Response.json(await anvilAnswer(calls)),
    );
    try {
      await expectBatchesOff(padding, height, direct, limit);
    } finally {
      padding.stop();
    }
  });

  test("with traces on, the block, its receipts and its trace are one request, and give what three requests give", async () => {
    const { height } = await mixedBlock();
    const counted = changingProxy((_, answer) => answer);
    const noBatches = recordingProxy(async (calls) => (Array.isArray(calls) ? new Response("no batches", { status: 400 }) : Response.json(await anvilAnswer(calls))));
    try {
      const batched = await createEvmSource(rpcFor(counted.url), "debug").fetch(height);
      const apart = await createEvmSource(rpcFor(noBatches.url), "debug").fetch(height);
      expect(counted.requests).toEqual([["eth_getBlockByNumber", "eth_getBlockReceipts", "debug_traceBlockByNumber"]]);
      expect(noBatches.requests.slice(1)).toEqual([["eth_getBlockByNumber"], ["eth_getBlockReceipts"], ["debug_traceBlockByNumber"]]);
      expect(batched?.internal).toBeInstanceOf(Map);
      expect(batched?.internal).toEqual(apart?.internal as never);
      expect(batched?.receipts).toEqual(apart?.receipts as never);
    } finally {
      counted.stop();
      noBatches.stop();
    }
  });

  test("token decimals: the config wins, decimals() is asked once and cached in the database, a non-token gives null", async () => {
    const calls: string[] = [];
    const counting = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(req) {
        const text = await req.text();
        calls.push(JSON.parse(text).method);
        return fetch(anvil.url, { method: "POST", headers: { "Content-Type": "application/json" }, body: text });
      },
    });
    try {
      const rpc = rpcFor(`http://127.0.0.1:${counting.port}`);
      const t = token.toLowerCase();
      const configured = createTokenDecimals({ db, clock: systemClock, network: "cfg", tokens: { [t]: { decimals: 9 } }, rpc });
      await configured.resolve([t]);
      expect(configured.decimalsOf(t)).toBe(9);
      expect(calls).toEqual([]);

      const first = createTokenDecimals({ db, clock: systemClock, network: "net2", tokens: {}, rpc });
      await first.resolve([t, W.toLowerCase()]);
      expect(first.decimalsOf(t)).toBe(6);
      expect(first.decimalsOf(W.toLowerCase())).toBeNull();
      expect(calls).toEqual(["eth_call", "eth_call"]);
      // A fresh process (new instance) reads the cache, not the node.
      const second = createTokenDecimals({ db, clock: systemClock, network: "net2", tokens: {}, rpc });
      await second.resolve([t, W.toLowerCase()]);
      expect(second.decimalsOf(t)).toBe(6);
      expect(calls).toHaveLength(2);
      const rows = await db.selectFrom("token_decimals").selectAll().where("network", "=", "net2").orderBy("address").execute();
      expect(rows.map((r) => [r.address, r.decimals])).toEqual([
        [W.toLowerCase(), null],
        [t, 6],
      ]);
    } finally {
      counting.stop(true);
    }
  });
});
