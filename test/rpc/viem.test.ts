import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BaseError, createPublicClient, createWalletClient, type Hex, http, parseEther, RpcRequestError } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { foundry } from "viem/chains";
import { type Anvil, startAnvil } from "../support/anvil.ts";
import { manualClock } from "../support/clock.ts";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { eventually } from "../support/poll.ts";

// A wallet library pointed at chainwatch's /rpc URL, used like a provider's endpoint, with a real
// anvil node behind it. anvil's first dev key (public knowledge) signs locally; chainwatch only
// ever sees eth_sendRawTransaction.
const DEV_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const RECIPIENT = "0x000000000000000000000000000000000000bEEF";
// Init code that emits LOG1(topic) from its constructor and deploys nothing: a log to find with eth_getLogs.
const TOPIC = `0x${"ab".repeat(32)}` as Hex;
const LOG_INIT_CODE = `0x7f${"ab".repeat(32)}60006000a100` as Hex;

let anvil: Anvil;
let td: TestDaemon;
let c: TestClient;
let rpcUrl: string;

beforeAll(async () => {
  anvil = await startAnvil();
  // The follower is on too: a transaction sent through /rpc comes back as an address-watch event.
  td = await startTestDaemon({
    config: {
      networks: {
        eth: { family: "evm", decimals: 18, get_block_cost: 20, rpc_urls: [anvil.url], follow: true, start_height: 0, poll_interval_ms: 50 },
        // A node that is down: nothing listens on port 1.
        down: { family: "evm", decimals: 18, rpc_urls: ["http://127.0.0.1:1"], rpc_timeout_ms: 1000 },
      },
    },
  });
  c = await td.client({ credits: 1_000_000, rpcRps: 10_000 });
  rpcUrl = `${td.url}/rpc/eth/${c.apiKey}`;
});

afterAll(async () => {
  await td?.stop();
  await anvil?.stop();
});

/** The watch's event for a transaction, once the follower has stored its block; fails after 10 s. */
function eventFor(watchId: string, txHash: string): Promise<Record<string, unknown>> {
  return eventually(async () => {
    const res = await c.request("GET", `/v1/address-watch/events?watch_id=${watchId}`);
    expect(res.status).toBe(200);
    return ((await res.json()) as { events: Record<string, unknown>[] }).events.find((e) => e.tx_hash === txHash);
  });
}

describe("viem through /rpc/{network}/{api_key}", () => {
  test("reads the block number, a balance and the chain id as the node does", async () => {
    const client = createPublicClient({ chain: foundry, transport: http(rpcUrl, { retryCount: 0 }) });
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(await anvil.public.getBlockNumber({ cacheTime: 0 }));
    expect(await client.getBalance({ address: anvil.accounts[1] })).toBe(parseEther("10000"));
    expect(await client.getChainId()).toBe(31337);
  });

  test("a locally signed transfer sent with eth_sendRawTransaction is mined, and the follower turns it into a payment event", async () => {
    const account = privateKeyToAccount(DEV_KEY);
    const transport = http(rpcUrl, { retryCount: 0 });
    const wallet = createWalletClient({ account, chain: foundry, transport });
    const client = createPublicClient({ chain: foundry, transport, pollingInterval: 20 });
    const watched = await c.request("POST", "/v1/address-watch/addresses", { network_slug: "eth", address: RECIPIENT });
    expect(watched.status).toBe(201);
    const { watch_id } = (await watched.json()) as { watch_id: string };
    const before = await client.getBalance({ address: RECIPIENT });
    const hash = await wallet.sendTransaction({ to: RECIPIENT, value: parseEther("1.5") });
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    expect(receipt.status).toBe("success");
    expect(receipt.from.toLowerCase()).toBe(account.address.toLowerCase());
    expect(await client.getBalance({ address: RECIPIENT })).toBe(before + parseEther("1.5"));
    // The node itself saw the same transaction.
    expect((await anvil.public.getTransaction({ hash })).to?.toLowerCase()).toBe(RECIPIENT.toLowerCase());
    // The follower read the block the node mined it in: a payment event on the watched address.
    const event = await eventFor(watch_id, hash);
    expect(event).toMatchObject({
      type: "payment",
      direction: "in",
      network: "eth",
      watch_id,
      address: RECIPIENT.toLowerCase(),
      tx_hash: hash,
      amount: "1.5",
      amount_raw: "1500000000000000000",
      asset: null,
      block_height: Number(receipt.blockNumber),
      block_hash: receipt.blockHash,
      removed: false,
    });
  });

  test("finds a contract's log with getLogs", async () => {
    const wallet = createWalletClient({ account: privateKeyToAccount(DEV_KEY), chain: foundry, transport: http(rpcUrl, { retryCount: 0 }) });
    const client = createPublicClient({ chain: foundry, transport: http(rpcUrl, { retryCount: 0 }), pollingInterval: 20 });
    const hash = await wallet.deployContract({ abi: [], bytecode: LOG_INIT_CODE });
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    const address = receipt.contractAddress as Hex;
    const logs = await client.getLogs({ address, fromBlock: 0n, toBlock: "latest" });
    expect(logs.map((l) => ({ address: l.address.toLowerCase(), topics: l.topics, tx: l.transactionHash }))).toEqual([
      { address: address.toLowerCase(), topics: [TOPIC], tx: hash },
    ]);
  });

  test("a batch of 20 goes out as one HTTP request and every call is answered by id", async () => {
    const requests: number[] = [];
    const transport = http(rpcUrl, {
      retryCount: 0,
      batch: { batchSize: 20 },
      onFetchRequest: async (req) => void requests.push((JSON.parse(await req.clone().text()) as unknown[]).length),
    });
    const client = createPublicClient({ chain: foundry, transport });
    const addresses = Array.from({ length: 20 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, "0")}` as Hex);
    const balances = await Promise.all(addresses.map((address) => client.getBalance({ address })));
    expect(requests).toEqual([20]);
    expect(balances).toEqual(await Promise.all(addresses.map((address) => anvil.public.getBalance({ address }))));
  });

  test("the header form answers like the path form", async () => {
    const client = createPublicClient({
      chain: foundry,
      transport: http(`${td.url}/rpc/eth`, { retryCount: 0, fetchOptions: { headers: { "X-Api-Key": c.apiKey } } }),
    });
    expect(await client.getBalance({ address: anvil.accounts[2] })).toBe(parseEther("10000"));
  });

  test("/metrics shows the calls by network, method and outcome, and the upstream latency histogram", async () => {
    const text = await (await fetch(`${td.url}/metrics`)).text();
    expect(text).toMatch(/chainwatch_rpc_calls_total\{network="eth",method="eth_getBalance",outcome="ok"\} \d+/);
    // The transfer and the log contract: two raw transactions.
    expect(text).toMatch(/chainwatch_rpc_calls_total\{network="eth",method="eth_sendRawTransaction",outcome="ok"\} 2\n/);
    expect(text).toMatch(/chainwatch_rpc_calls_total\{network="eth",method="eth_getLogs",outcome="ok"\} 1\n/);
    expect(text).toContain("# TYPE chainwatch_rpc_upstream_seconds histogram");
    expect(text).toContain(`chainwatch_rpc_upstream_seconds_bucket{network="eth",upstream="${anvil.url}",le="+Inf"}`);
  });
});

describe("viem reports chainwatch's own errors with chainwatch's words", () => {
  /** What a viem client pointed at `url` throws for `getBlockNumber`, as the fields an app would show. */
  async function failure(url: string, opts: { batch?: boolean; method?: string } = {}) {
    const client = createPublicClient({ chain: foundry, transport: http(url, { retryCount: 0, batch: opts.batch }) });
    const thrown = await (opts.method ? client.request({ method: opts.method as "eth_blockNumber" }) : client.getBlockNumber({ cacheTime: 0 })).then(
      () => null,
      (e: unknown) => e,
    );
    expect(thrown).toBeInstanceOf(BaseError);
    const err = thrown as BaseError;
    const request = err.walk((e) => e instanceof RpcRequestError) as RpcRequestError | null;
    return { name: err.name, shortMessage: err.shortMessage, details: err.details, code: (err as { code?: number }).code, status: request?.status };
  }
  // viem's own class for an unknown code: no meaning of EIP-1474's (-32004 read as "Method is not supported.") is put on it.
  const ours = (code: number, details: string, status: number) => ({ name: "RpcRequestError", shortMessage: "RPC Request failed.", details, code, status });

  test("an unknown key (-32010), also for a batch refused whole", async () => {
    const url = `${td.url}/rpc/eth/00000000-0000-4000-8000-000000000000`;
    expect(await failure(url)).toEqual(ours(-32010, "Invalid API key", 401));
    expect(await failure(url, { batch: true })).toEqual(ours(-32010, "Invalid API key", 401));
  });

  test("an IP outside the key's allowlist (-32011)", async () => {
    const fenced = await td.client({ credits: 10, rpcRps: 10, allowIps: ["10.0.0.0/8"] });
    expect(await failure(`${td.url}/rpc/eth/${fenced.apiKey}`)).toEqual(ours(-32011, "IP address not allowed.", 403));
  });

  test("an unknown network (-32012)", async () => {
    expect(await failure(`${td.url}/rpc/nope/${c.apiKey}`)).toEqual(ours(-32012, "Unknown network: nope", 404));
  });

  test("credits that cannot pay (-32013)", async () => {
    const broke = await td.client({ credits: 0, rpcRps: 10 });
    expect(await failure(`${td.url}/rpc/eth/${broke.apiKey}`)).toEqual(ours(-32013, "Insufficient credits.", 402));
  });

  test("the rate limit keeps EIP-1474's -32005, which viem reads as a limit too", async () => {
    // A daemon on a clock held still: both calls fall in one second of rpc_rps however long the
    // first takes on a loaded machine (on the real clock, a first call answered after more than a
    // second would let the second through).
    const still = await startTestDaemon({ clock: manualClock(), config: { networks: { eth: { family: "evm", decimals: 18, rpc_urls: [anvil.url] } } } });
    try {
      const slow = await still.client({ credits: 100, rpcRps: 1 });
      const url = `${still.url}/rpc/eth/${slow.apiKey}`;
      await createPublicClient({ chain: foundry, transport: http(url, { retryCount: 0 }) }).getBlockNumber({ cacheTime: 0 });
      expect(await failure(url)).toEqual({ name: "LimitExceededRpcError", shortMessage: "Request exceeds defined limit.", details: "Rate limit exceeded.", code: -32005, status: 429 });
    } finally {
      await still.stop();
    }
  });

  // -32700 (a body that is not JSON) cannot come from viem, which always sends JSON; the proxy's own tests cover it.
  test("a batch over 100 calls (-32600, as JSON-RPC defines an invalid request), refused whole", async () => {
    const client = createPublicClient({ chain: foundry, transport: http(rpcUrl, { retryCount: 0, batch: { batchSize: 101, wait: 10 } }) });
    const address = (i: number) => `0x${i.toString(16).padStart(40, "0")}` as Hex;
    const results = await Promise.allSettled(Array.from({ length: 101 }, (_, i) => client.getBalance({ address: address(i + 1) })));
    const reasons = results.map((r) => (r.status === "rejected" ? (r.reason as BaseError) : null));
    expect(reasons.every((e) => e instanceof BaseError)).toBe(true);
    const first = reasons[0] as BaseError;
    const request = first.walk((e) => e instanceof RpcRequestError) as RpcRequestError | null;
    expect({ name: first.name, details: first.details, code: (first as { code?: number }).code, status: request?.status }).toEqual({
      name: "InvalidRequestRpcError",
      details: "Invalid request: a batch of 101 calls; at most 100.",
      code: -32600,
      status: 400,
    });
  });

  test("every upstream down (-32603)", async () => {
    expect(await failure(`${td.url}/rpc/down/${c.apiKey}`)).toMatchObject({ code: -32603, details: "Upstream unavailable.", status: 502 });
  });

  test("a method not on the allow-list (-32601, as JSON-RPC defines it)", async () => {
    expect(await failure(rpcUrl, { method: "eth_sendTransaction" })).toEqual({
      name: "MethodNotFoundRpcError",
      shortMessage: 'The method "eth_sendTransaction" does not exist / is not available.',
      details: "Method not allowed: eth_sendTransaction",
      code: -32601,
      status: undefined,
    });
  });
});
