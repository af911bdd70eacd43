import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createPublicClient, createWalletClient, http, parseEther, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { foundry } from "viem/chains";
import { type Anvil, startAnvil } from "../support/anvil.ts";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";

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
    config: { networks: { eth: { family: "evm", decimals: 18, get_block_cost: 20, rpc_urls: [anvil.url], follow: true, start_height: 0, poll_interval_ms: 50 } } },
  });
  c = await td.client({ credits: 1_000_000, rpcRps: 10_000 });
  rpcUrl = `${td.url}/rpc/eth/${c.apiKey}`;
});

afterAll(async () => {
  await td?.stop();
  await anvil?.stop();
});

/** The watch's event for a transaction, once the follower has stored its block; fails after 10 s. */
async function eventFor(watchId: string, txHash: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 500; i++) {
    const res = await c.request("GET", `/v1/address-watch/events?watch_id=${watchId}`);
    expect(res.status).toBe(200);
    const found = ((await res.json()) as { events: Record<string, unknown>[] }).events.find((e) => e.tx_hash === txHash);
    if (found) return found;
    await Bun.sleep(20);
  }
  throw new Error(`no event for ${txHash}`);
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
