import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createBtcClient, BtcRpcError } from "../../../src/follow/btc/client.ts";
import { createMempoolWatch } from "../../../src/follow/btc/mempool.ts";
import { mempoolOrders } from "../../../src/payments/mempool.ts";
import { startTestDaemon, type TestDaemon } from "../../support/harness.ts";
import { btcReaderFor } from "../../../src/follow/btc/reader.ts";
import { createBtcSource, HASHES_AHEAD } from "../../../src/follow/btc/source.ts";
import { btcMoneyLimit } from "../../../src/config/networks.ts";
import { ChainIdMismatch } from "../../../src/follow/core/chain-id-guard.ts";
import { MalformedUpstreamData } from "../../../src/follow/core/upstream-data.ts";
import { parseBatch } from "../../../src/ingest/batch-schema.ts";
import { feedBlockOf } from "../../support/feed-block.ts";
import type { NetworkConfig } from "../../../src/config/schema.ts";
import { systemClock } from "../../../src/lib/clock.ts";
import { silentLogger } from "../../../src/lib/log.ts";
import { createUpstreamPool, type UpstreamPool } from "../../../src/upstream/pool.ts";
import { freePort } from "../../support/free-port.ts";
import { type Litecoind, startLitecoind } from "../../support/litecoind.ts";

// The Bitcoin-family source, client and reader against a real Litecoin Core regtest node, reached
// through the network's upstream pool with the credentials in its URL, as a daemon reaches it.

let node: Litecoind;
let miner: string;
let tip: number;
/** The block holding the test's payments, and what the node says of it. */
let paid: { height: number; hash: string; bech32: string; legacy: string; bech32Tx: string; legacyTx: string; opReturnTx: string };

/** Methods the pool sent, in order (the fetch under the pool records them). */
const sent: string[] = [];
/** Each request the pool sent: its calls' methods and first parameters. */
const requests: { method: string; param: unknown }[][] = [];
const recordingFetch = (async (input: string | URL | Request, init?: RequestInit) => {
  const calls = [JSON.parse(String(init?.body))].flat() as { method: string; params: unknown[] }[];
  for (const call of calls) sent.push(call.method);
  requests.push(calls.map((c) => ({ method: c.method, param: c.params[0] })));
  return fetch(input, init);
}) as typeof fetch;

function poolFor(url: string): UpstreamPool {
  return createUpstreamPool({ network: "ltc", urls: [url], timeoutMs: 5000, fetch: recordingFetch, clock: systemClock, log: silentLogger });
}

/** A proxy in front of the node answering each request's text as `answer` does (the node's own answer: `ask`). */
function nodeProxy(answer: (text: string, ask: () => Promise<Response>) => Response | Promise<Response>): { url: string; stop(): void } {
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const text = await req.text();
      // The node's URL carries its credentials: fetch sends them as basic auth.
      return answer(text, () => fetch(node.url, { method: "POST", body: text }));
    },
  });
  return { url: `http://127.0.0.1:${server.port}/`, stop: () => server.stop(true) };
}

/** Litecoin's MAX_MONEY, 84 million coins, as `[networks.ltc] max_money` gives it. */
const LITECOIN = btcMoneyLimit("ltc", { family: "btc", decimals: 8, max_money: 84_000_000 } as NetworkConfig);

/** A network config as loadConfig would give it; `chain` is the btc family's optional key. */
function network(chain?: string): NetworkConfig {
  return { family: "btc", decimals: 8, max_money: 84_000_000, rpc_urls: [node.url], ...(chain === undefined ? {} : { chain }) } as unknown as NetworkConfig;
}

/** The error a promise rejects with; a promise that resolves fails the test. */
async function rejection(promise: Promise<unknown>): Promise<Error & { code?: number | null }> {
  try {
    await promise;
  } catch (e) {
    return e as Error & { code?: number | null };
  }
  throw new Error("expected a rejection");
}

type NodeBlock = { tx: { txid: string; vin: { txid?: string; vout?: number; coinbase?: string }[]; vout: { n: number }[] }[] };

beforeAll(async () => {
  node = await startLitecoind();
  await node.createWallet("source");
  miner = await node.newAddress("bech32");
  // Coinbase outputs spend after 100 blocks.
  await node.mine(101, miner);
  const bech32 = await node.newAddress("bech32");
  const legacy = await node.newAddress("legacy");
  const bech32Tx = await node.send(bech32, "0.12345678");
  const legacyTx = await node.send(legacy, "0.3");
  // An OP_RETURN output ("chainwatch"), funded and signed by the wallet.
  const raw = await node.rpc<string>("createrawtransaction", [[], [{ data: Buffer.from("chainwatch").toString("hex") }]]);
  const funded = await node.rpc<{ hex: string }>("fundrawtransaction", [raw], "source");
  const signed = await node.rpc<{ hex: string }>("signrawtransactionwithwallet", [funded.hex], "source");
  const opReturnTx = await node.rpc<string>("sendrawtransaction", [signed.hex]);
  const [hash] = await node.mine(1, miner);
  tip = await node.rpc<number>("getblockcount");
  paid = { height: tip, hash, bech32, legacy, bech32Tx, legacyTx, opReturnTx };
}, 60_000);

afterAll(async () => {
  await node?.stop();
}, 30_000);

describe("btc source", () => {
  test("reads the head", async () => {
    expect(await createBtcSource(createBtcClient(poolFor(node.url)), LITECOIN).head()).toBe(tip);
  });

  test("hashAt is the node's hash, and null above the tip without failing the upstream", async () => {
    const pool = poolFor(node.url);
    const source = createBtcSource(createBtcClient(pool), LITECOIN);
    expect(await source.hashAt(paid.height)).toBe(paid.hash);
    expect(await source.hashAt(tip + 1)).toBeNull();
    expect(await source.fetch(tip + 1)).toBeNull();
    // The node answered code -8 inside a batch (HTTP 200): no upstream error, no failover.
    expect(pool.states()[0]).toMatchObject({ healthy: true, errors: 0 });
  });

  test("reads a block: the coinbase, a bech32 and a legacy payment, an OP_RETURN output", async () => {
    const block = await createBtcSource(createBtcClient(poolFor(node.url)), LITECOIN).fetch(paid.height);
    if (!block) throw new Error("no block");
    expect(block.hash).toBe(paid.hash);
    expect(block.parentHash).toBe(await node.rpc<string>("getblockhash", [paid.height - 1]));
    const [coinbase] = block.transactions;
    expect(coinbase.inputs).toEqual([]);
    expect(coinbase.outputs[0].address).toBe(miner);

    const byId = new Map(block.transactions.map((tx) => [tx.txid, tx]));
    // Who each transaction pays and how much; its outputs' order is the node's choice.
    const pays = (txid: string) => byId.get(txid)?.outputs.map(({ address, value }) => ({ address, value }));
    expect(pays(paid.bech32Tx)).toContainEqual({ address: paid.bech32, value: 12_345_678n });
    expect(pays(paid.legacyTx)).toContainEqual({ address: paid.legacy, value: 30_000_000n });
    expect(paid.legacy).toMatch(/^[mn]/);
    expect(pays(paid.opReturnTx)).toContainEqual({ address: null, value: 0n });

    // Inputs and outputs as the node lists them: every outpoint spent, every output in n order.
    const raw = await node.rpc<NodeBlock>("getblock", [paid.hash, 2]);
    for (const tx of raw.tx) {
      const read = byId.get(tx.txid);
      expect(read?.inputs).toEqual(tx.vin.filter((v) => v.coinbase === undefined).map((v) => ({ txid: v.txid as string, vout: v.vout as number })));
      expect(read?.outputs.map((o) => o.vout)).toEqual(tx.vout.map((v) => v.n));
    }
  });

  test("meters the bytes of the block's answers", async () => {
    const block = await createBtcSource(createBtcClient(poolFor(node.url)), LITECOIN).fetch(paid.height);
    // Bun's fetch sends the URL's credentials as basic auth.
    const res = await fetch(node.url, { method: "POST", body: JSON.stringify([{ jsonrpc: "1.0", id: 0, method: "getblock", params: [paid.hash, 2] }]) });
    const getblockBytes = (await res.arrayBuffer()).byteLength;
    // getblockhash's answer and getblock's.
    expect(block?.bytes).toBeGreaterThan(getblockBytes);
    expect(block?.bytes).toBeLessThan(getblockBytes + 200);
  });

  test("refuses an amount with more than 8 decimals instead of rounding it", async () => {
    // A proxy in front of the node that adds a ninth decimal to the first amount of each block.
    const proxy = nodeProxy(async (_, ask) => {
      const res = await ask();
      return new Response((await res.text()).replace(/"value":([0-9]+\.[0-9]{8})/, '"value":$11'), { status: res.status });
    });
    try {
      const pool = poolFor(proxy.url);
      const source = createBtcSource(createBtcClient(pool), LITECOIN);
      await expect(source.fetch(paid.height)).rejects.toThrow(MalformedUpstreamData);
      await expect(source.fetch(paid.height)).rejects.toThrow(`the node sent a malformed block ${paid.height}: tx[0].vout[0].value is not an amount of at most 8 decimals`);
      // The node answered: a block it got wrong is its answer, not the node failing (no backoff, no failover).
      expect(pool.states()[0]).toMatchObject({ healthy: true, errors: 0 });
    } finally {
      proxy.stop();
    }
  });

  test("after the head, a block is one request: the hashes come 32 heights to a batch, the next asked while half are left", async () => {
    const source = createBtcSource(createBtcClient(poolFor(node.url)), LITECOIN);
    expect(await source.head()).toBe(tip);
    requests.length = 0;
    const read: string[] = [];
    for (let h = 0; h < 70; h++) read.push((await source.fetch(h))?.hash ?? "none");
    // The same blocks as asking each height's hash on its own (one at a time: the node queues 16 calls at most).
    const own: string[] = [];
    for (let h = 0; h < 70; h++) own.push(await node.rpc<string>("getblockhash", [h]));
    expect(read).toEqual(own);
    const hashBatches = requests.filter((r) => r[0].method === "getblockhash");
    expect(hashBatches.map((r) => r.map((c) => c.param))).toEqual([
      Array.from({ length: HASHES_AHEAD }, (_, i) => i),
      // Asked with the block at height 16, when 16 of the first batch were left.
      Array.from({ length: HASHES_AHEAD }, (_, i) => 32 + i),
      Array.from({ length: HASHES_AHEAD }, (_, i) => 64 + i),
    ]);
    expect(requests.filter((r) => r[0].method === "getblock").map((r) => r.length)).toEqual(Array(70).fill(1));
    expect(requests.length).toBe(73);
  });

  test("hashes are looked up ahead to the head as last asked, never past it, and asked afresh after hashAt or head", async () => {
    const source = createBtcSource(createBtcClient(poolFor(node.url)), LITECOIN);
    // Before any head: each height's hash on its own.
    requests.length = 0;
    expect((await source.fetch(tip - 1))?.hash).toBe(await node.rpc<string>("getblockhash", [tip - 1]));
    expect(requests.map((r) => r.map((c) => c.method))).toEqual([["getblockhash"], ["getblock"]]);

    await source.head();
    requests.length = 0;
    await source.fetch(tip - 2);
    // Three heights were left to the head.
    expect(requests[0].map((c) => c.param)).toEqual([tip - 2, tip - 1, tip]);
    // Above the head as last asked: asked alone, and null (the node has no block there).
    expect(await source.fetch(tip + 1)).toBeNull();
    expect(requests.at(-1)?.map((c) => c.method)).toEqual(["getblockhash"]);

    // hashAt forgets what was looked up: the next height is asked again.
    await source.hashAt(tip);
    requests.length = 0;
    await source.fetch(tip - 1);
    expect(requests[0].map((c) => c.param)).toEqual([tip - 1, tip]);
  });

  test("an upstream that refuses batches of more than one call gets each hash alone, and no batch after the first", async () => {
    for (const refusal of [() => Response.json({ result: null, error: { code: -32600, message: "batch too large" }, id: null }), () => new Response("batch too large", { status: 400 })]) {
      const capped = nodeProxy((text, ask) => ((JSON.parse(text) as unknown[]).length > 1 ? refusal() : ask()));
      try {
        const source = createBtcSource(createBtcClient(poolFor(capped.url)), LITECOIN);
        await source.head();
        requests.length = 0;
        for (let h = tip - 3; h <= tip; h++) expect((await source.fetch(h))?.hash).toBe(await node.rpc<string>("getblockhash", [h]));
        expect(requests.map((r) => r.map((c) => c.method).join("+"))).toEqual([
          "getblockhash+getblockhash+getblockhash+getblockhash",
          ...Array(4).fill(["getblockhash", "getblock"]).flat(),
        ]);
      } finally {
        capped.stop();
      }
    }
  });

  test("reads the genesis block, which has no parent", async () => {
    const reader = btcReaderFor("ltc", network("regtest"), poolFor(node.url), { log: silentLogger });
    const genesis = await reader.read(0);
    if (!genesis) throw new Error("no genesis");
    expect(genesis.parentHash).toBe("0".repeat(64));
    expect(feedBlockOf(reader.toBlock(genesis), "btc").parent_hash).toBeNull();
  });
});

describe("btc reader", () => {
  test("hands the ingest a block it accepts, with exact amounts", async () => {
    const reader = btcReaderFor("ltc", network("regtest"), poolFor(node.url), { log: silentLogger });
    const block = await reader.read(paid.height);
    if (!block) throw new Error("no block");
    const input = feedBlockOf(reader.toBlock(block), "btc");
    expect(parseBatch(input).ok).toBe(true);
    expect(input).toMatchObject({ network: "ltc", height: paid.height, hash: paid.hash });
    const tx = input.transactions.find((t) => t.hash === paid.bech32Tx);
    expect(tx).toMatchObject({ from: null, to: null, value: "0" });
    expect(tx?.outputs).toContainEqual({ address: paid.bech32, value: "12345678" });
  });

  test("asks the node's chain once, and again after recheckChain()", async () => {
    const reader = btcReaderFor("ltc", network("regtest"), poolFor(node.url), { log: silentLogger });
    sent.length = 0;
    await reader.head();
    await reader.hashAt(1);
    expect(sent).toEqual(["getblockchaininfo", "getblockcount", "getblockhash"]);
    reader.recheckChain?.();
    await reader.head();
    expect(sent.slice(3)).toEqual(["getblockchaininfo", "getblockcount"]);
  });

  test("refuses a node on another chain than [networks.X] chain, naming both", async () => {
    const reader = btcReaderFor("ltc", network("main"), poolFor(node.url), { log: silentLogger });
    const error = await rejection(reader.head());
    expect(error).toBeInstanceOf(ChainIdMismatch);
    expect(error.message).toContain('is on chain "regtest", not "main" ([networks.ltc] chain)');
    // Still refused on the next read: a failed check is asked again, not forgotten.
    await expect(reader.read(paid.height)).rejects.toThrow(ChainIdMismatch);
  });

  test("without a configured chain, follows the one the node answered first", async () => {
    const infos: unknown[] = [];
    const log = { ...silentLogger, info: (msg: string, fields?: unknown) => void infos.push({ msg, fields }) };
    const reader = btcReaderFor("ltc", network(), poolFor(node.url), { log });
    expect(await reader.head()).toBe(tip);
    expect(infos).toContainEqual({ msg: "follower chain", fields: expect.objectContaining({ network: "ltc", chain: "regtest" }) });
  });
});

describe("btc client", () => {
  test("throws the node's error with its code, and no credentials", async () => {
    const client = createBtcClient(poolFor(node.url));
    const error = await rejection(client.call("getblock", ["00".repeat(32), 2]));
    expect(error).toBeInstanceOf(BtcRpcError);
    expect(error.code).toBe(-5);
    expect(error.message).toBe('getblock: the node answered error -5: "Block not found"');
  });

  test("keeps credentials out of errors and upstream labels", async () => {
    const { username } = new URL(node.url);
    const wrongPassword = node.url.replace(/:[^:@]+@/, ":wrongsecret@");
    const closed = `http://someuser:closedportsecret@127.0.0.1:${freePort()}/`;
    for (const url of [wrongPassword, closed]) {
      const pool = poolFor(url);
      const error = await rejection(createBtcClient(pool).call("getblockcount", []));
      expect(error).toBeInstanceOf(BtcRpcError);
      expect(error.code).toBeNull();
      for (const text of [error.message, pool.states()[0].label, pool.states()[0].lastError, pool.current()]) {
        for (const credential of ["secret", username, "someuser"]) expect(text).not.toContain(credential);
      }
    }
    expect(poolFor(node.url).states()[0].label).toBe(`http://127.0.0.1:${node.rpcPort}`);
  });

  test("callEach answers each call by its id, whatever the order of the node's answers; a node error is its own call's", async () => {
    // A proxy in front of the node that hands back a batch's answers in reverse order.
    const proxy = nodeProxy(async (_, ask) => Response.json(((await (await ask()).json()) as unknown[]).reverse()));
    try {
      const answers = await createBtcClient(poolFor(proxy.url)).callEach("getblockhash", [[paid.height], [tip + 1], [0]]);
      expect(answers[0]).toEqual({ result: paid.hash });
      expect(answers[2]).toEqual({ result: await node.rpc<string>("getblockhash", [0]) });
      const outOfRange = answers[1] as { error: BtcRpcError };
      expect(outOfRange.error).toBeInstanceOf(BtcRpcError);
      expect(outOfRange.error.code).toBe(-8);
    } finally {
      proxy.stop();
    }
  });

  test("callEach refuses a batch answered with a call missing, one answered twice, or an answer to no call", async () => {
    const rewrites: [string, (answers: { id: unknown }[]) => unknown][] = [
      ["getblockhash: the node answered a batch of 2 calls with 1 answers", (a) => a.slice(0, 1)],
      ['getblockhash: the node answered a batch of 2 calls with an answer to no call of it ({"result":', (a) => [a[0], { ...a[1], id: 0 }]],
      ['getblockhash: the node answered a batch of 2 calls with an answer to no call of it ({"result":', (a) => [a[0], { ...a[1], id: 7 }]],
      ['getblockhash: the node did not answer a batch of 2 calls with a list ({"result":', (a) => a[0]],
    ];
    for (const [message, rewrite] of rewrites) {
      const proxy = nodeProxy(async (_, ask) => Response.json(rewrite((await (await ask()).json()) as { id: unknown }[])));
      try {
        const error = await rejection(createBtcClient(poolFor(proxy.url)).callEach("getblockhash", [[0], [1]]));
        expect(error).toBeInstanceOf(MalformedUpstreamData);
        expect(error.message).toStartWith(message);
      } finally {
        proxy.stop();
      }
    }
  });

  test("a wrong password is an upstream failure (HTTP 401)", async () => {
    const pool = poolFor(node.url.replace(/:[^:@]+@/, ":wrongpassword@"));
    await expect(createBtcClient(pool).call("getblockcount", [])).rejects.toThrow("getblockcount: no upstream answered: HTTP 401");
  });
});

// Last: it mines a block, which moves the node's tip the tests above read.
describe("btc mempool watch", () => {
  let td: TestDaemon;
  /** The transactions put in the node's mempool: more than a batch of the watch's (4). */
  const sent: string[] = [];
  const PER_REQUEST = 4;
  const TXS = 6;

  beforeAll(async () => {
    td = await startTestDaemon({
      config: { networks: { ltc: { family: "btc", decimals: 8, bech32_hrp: "rltc", p2pkh_version: 111, p2sh_version: 58, chain: "regtest", rpc_urls: [node.url], follow: false } } },
    });
    // A payment order waiting for its first payment, which is what makes a look read anything.
    const shop = await td.client({ credits: 1_000_000 });
    const order = await shop.request("POST", "/v1/payments", { order_id: "inv-mempool", network: "ltc", address: await node.newAddress("bech32"), amount: "0.001" });
    expect(order.status).toBe(201);
    // Confirmed coins, then a transaction in the mempool spending each.
    const coins: string[] = [];
    for (let i = 0; i < TXS; i++) coins.push(await node.newAddress("bech32"));
    await node.sendMany(Object.fromEntries(coins.map((a) => [a, "0.01"])));
    await node.mine(1, miner);
    for (let i = 0; i < TXS; i++) sent.push(await node.send(coins[i], "0.001"));
  }, 30_000);

  afterAll(async () => {
    await td?.stop();
  });

  /** A mempool watch over the upstream at `url`, noting the transactions each look hands the orders. */
  function watchOver(url: string) {
    const orders = mempoolOrders(td.ctx.db);
    const handed: string[] = [];
    const watch = createMempoolWatch({
      network: "ltc",
      client: createBtcClient(poolFor(url)),
      limit: LITECOIN,
      txsPerRequest: PER_REQUEST,
      // The orders' own port, noting what each look hands over.
      orders: {
        waiting: orders.waiting,
        observe: (look, fence) => {
          handed.push(...look.arrived.map((t) => t.txid));
          return orders.observe(look, fence);
        },
      },
      clock: td.ctx.clock,
      log: silentLogger,
      redact: (t) => t,
    });
    return { watch, handed };
  }

  test("reads the transactions it has not read, a batch to a request, and hands every one to the orders once", async () => {
    const { watch, handed } = watchOver(node.url);
    requests.length = 0;
    await watch.look();
    expect(handed.sort()).toEqual([...sent].sort());
    expect(requests.map((r) => [r[0].method, r.length])).toEqual([
      ["getrawmempool", 1],
      ["getrawtransaction", PER_REQUEST],
      ["getrawtransaction", TXS - PER_REQUEST],
    ]);
    // Read once: the next look asks only the mempool's list.
    requests.length = 0;
    handed.length = 0;
    await watch.look();
    expect(requests.map((r) => r[0].method)).toEqual(["getrawmempool"]);
    expect(handed).toEqual([]);
  });

  test("an upstream that refuses a batch gets the transactions one request each, and no batch after the first", async () => {
    const capped = nodeProxy((text, ask) => ((JSON.parse(text) as unknown[]).length > 1 ? new Response("batch too large", { status: 400 }) : ask()));
    try {
      const { watch, handed } = watchOver(capped.url);
      requests.length = 0;
      await watch.look();
      expect(handed.sort()).toEqual([...sent].sort());
      // The first batch refused, then every transaction alone: the second batch never tried as one.
      expect(requests.map((r) => [r[0].method, r.length])).toEqual([["getrawmempool", 1], ["getrawtransaction", PER_REQUEST], ...Array(TXS).fill(["getrawtransaction", 1])]);
    } finally {
      capped.stop();
    }
  });
});
