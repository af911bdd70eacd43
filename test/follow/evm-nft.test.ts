import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Abi, type Address, type Hash } from "viem";
import { foundry } from "viem/chains";
import { type Anvil, startAnvil } from "../support/anvil.ts";
import { testMultiTokenAbi, testMultiTokenBytecode } from "../support/contracts/test-multi-token.ts";
import { testNftAbi, testNftBytecode } from "../support/contracts/test-nft.ts";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { until } from "../support/poll.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";

// Real ERC-721 and ERC-1155 contracts on a real anvil node, followed by a real daemon: mints and
// transfers are payments and payouts naming the contract, the standard and the token id; a reorg
// retracts them; a payment order for the NFT contract's address never counts them.

type Body = Record<string, any>;

let anvil: Anvil;
let td: TestDaemon;
let client: TestClient;
let sink: WebhookSink;
let nft: Address;
let multi: Address;
let n = 0;

const fresh = (): Address => `0x${(0xaf700000 + ++n).toString(16).padStart(40, "0")}` as Address;

async function deploy(abi: Abi, bytecode: `0x${string}`): Promise<Address> {
  const hash = await anvil.wallet.deployContract({ abi, bytecode, account: anvil.accounts[0], chain: foundry });
  return (await anvil.public.waitForTransactionReceipt({ hash })).contractAddress as Address;
}

beforeAll(async () => {
  anvil = await startAnvil();
  td = await startTestDaemon({
    config: {
      rate_limit: { per_key_rps: 1000 },
      networks: { anv: { family: "evm", decimals: 18, confirmations: 1, rpc_urls: [anvil.url], follow: true, start_height: 0, poll_interval_ms: 100, max_reorg_depth: 8, chain_id: 31337 } },
    },
  });
  nft = await deploy(testNftAbi as Abi, testNftBytecode);
  multi = await deploy(testMultiTokenAbi as Abi, testMultiTokenBytecode);
  sink = startWebhookSink();
  client = await td.client({ credits: 10_000_000, slots: 50 });
  const hook = await client.request("PUT", "/v1/address-watch/webhook", { url: sink.url, enabled: true, events: { block: false } });
  expect(hook.status).toBe(200);
});
afterAll(async () => {
  await td.stop();
  await sink.stop();
  await anvil.stop();
});

async function watch(address: string): Promise<string> {
  const res = await client.request("POST", "/v1/address-watch/addresses", { network_slug: "anv", address });
  expect(res.status).toBe(201);
  return ((await res.json()) as Body).watch_id;
}

function received(match: (b: Body) => boolean, count = 1): Promise<Body[]> {
  return until(async () => sink.received.map((r) => JSON.parse(r.body) as Body).filter(match), (hits) => hits.length >= count, 15_000);
}

async function eventsOf(watchId: string): Promise<Body[]> {
  const res = await client.request("GET", `/v1/address-watch/events?watch_id=${watchId}&limit=1000`);
  expect(res.status).toBe(200);
  return ((await res.json()) as Body).events;
}

function call(from: Address, to: Address, abi: Abi, functionName: string, args: unknown[]): Promise<Hash> {
  return anvil.wallet.writeContract({ account: from, chain: foundry, address: to, abi, functionName, args });
}

describe("NFTs on a followed node", () => {
  test("an ERC-721 minted to a watched address is a payment of one token of its id; sent on, a payout", async () => {
    const holder = anvil.accounts[5] as Address;
    const other = fresh();
    const watchId = await watch(holder);
    // Past 2^53 and past 2^128: the id travels as a decimal string, never a number.
    const tokenId = 2n ** 200n + 7n;
    const mint = await call(anvil.accounts[0] as Address, nft, testNftAbi as Abi, "mint", [holder, tokenId]);
    const [minted] = await received((b) => b.tx_hash === mint);
    expect(minted).toMatchObject({
      type: "payment",
      direction: "in",
      address: holder.toLowerCase(),
      asset: nft.toLowerCase(),
      token_standard: "erc721",
      token_id: tokenId.toString(),
      amount: "1",
      amount_raw: "1",
      internal: false,
      removed: false,
    });

    const send = await call(holder, nft, testNftAbi as Abi, "transferFrom", [holder, other, tokenId]);
    const [sent] = await received((b) => b.tx_hash === send);
    expect(sent).toMatchObject({ type: "payout", direction: "out", asset: nft.toLowerCase(), token_standard: "erc721", token_id: tokenId.toString(), amount_raw: "1" });
    expect((await eventsOf(watchId)).map((e) => [e.type, e.tx_hash, e.token_id])).toEqual([
      ["payment", mint, tokenId.toString()],
      ["payout", send, tokenId.toString()],
    ]);
  });

  test("an ERC-1155 batch is one payment per id in its order, a single transfer out one payout of its value", async () => {
    const holder = anvil.accounts[6] as Address;
    const watchId = await watch(holder);
    const batch = await call(anvil.accounts[0] as Address, multi, testMultiTokenAbi as Abi, "mintBatch", [holder, [3n, 1n], [5n, 2n]]);
    const minted = await received((b) => b.tx_hash === batch, 2);
    expect(minted.map((b) => [b.type, b.asset, b.token_standard, b.token_id, b.amount, b.amount_raw])).toEqual([
      ["payment", multi.toLowerCase(), "erc1155", "3", "5", "5"],
      ["payment", multi.toLowerCase(), "erc1155", "1", "2", "2"],
    ]);
    const send = await call(holder, multi, testMultiTokenAbi as Abi, "safeTransferFrom", [holder, fresh(), 3n, 4n, "0x"]);
    const [sent] = await received((b) => b.tx_hash === send);
    expect(sent).toMatchObject({ type: "payout", token_standard: "erc1155", token_id: "3", amount_raw: "4" });
    expect(await eventsOf(watchId)).toHaveLength(3);
  });

  test("a reorg orphaning a mint retracts its event, delivered again with removed: true", async () => {
    const holder = fresh();
    const watchId = await watch(holder);
    const mint = await call(anvil.accounts[0] as Address, multi, testMultiTokenAbi as Abi, "mint", [holder, 11n, 1n]);
    const [first] = await received((b) => b.tx_hash === mint);
    expect(first).toMatchObject({ token_standard: "erc1155", token_id: "11", removed: false });

    await anvil.rpc("anvil_reorg", [1, []]);
    const [retracted] = await received((b) => b.tx_hash === mint && b.removed === true);
    expect(retracted).toEqual({ ...first, removed: true });
    expect(await eventsOf(watchId)).toEqual([{ ...first, removed: true }]);
  });

  test("a payment order for an address never counts an NFT it receives, whatever asset it names", async () => {
    const holder = fresh();
    const watchId = await watch(holder);
    const made = await client.request("POST", "/v1/payments", { order_id: `nft-${holder}`, network: "anv", address: holder, amount: "1", asset: nft, decimals: 0 });
    expect(made.status).toBe(201);
    const order = (await made.json()) as Body;
    const mint = await call(anvil.accounts[0] as Address, nft, testNftAbi as Abi, "mint", [holder, 99n]);
    await received((b) => b.tx_hash === mint);
    // The event is stored and delivered; the order, read after it, has seen nothing.
    expect((await eventsOf(watchId)).map((e) => e.tx_hash)).toEqual([mint]);
    const read = (await (await client.request("GET", `/v1/payments/${order.payment_id}`)).json()) as Body;
    expect(read).toMatchObject({ status: order.status, amount_received: order.amount_received });
  });
});
