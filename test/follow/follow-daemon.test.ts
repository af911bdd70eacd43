import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Address, encodeFunctionData, type Hash } from "viem";
import { foundry } from "viem/chains";
import { type Anvil, startAnvil } from "../support/anvil.ts";
import { testTokenAbi, testTokenBytecode } from "../support/contracts/test-token.ts";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import { until } from "../support/poll.ts";

// A real daemon following a real anvil node, delivering to a real receiver. The network's first
// upstream is a port nothing listens on: every test also proves failover to the second.

type Body = Record<string, any>;
const ETH = 1_000_000_000_000_000_000n;

let anvil: Anvil;
let td: TestDaemon;
let client: TestClient;
let sink: WebhookSink;
let payments: WebhookSink;
let deadUrl: string;
let n = 0;

/** A fresh address nobody has used. */
const fresh = (): Address => `0x${(0xc0ffee00 + ++n).toString(16).padStart(40, "0")}` as Address;

beforeAll(async () => {
  anvil = await startAnvil();
  const dead = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  deadUrl = `http://127.0.0.1:${dead.port}`;
  dead.stop(true);
  td = await startTestDaemon({
    config: {
      rate_limit: { per_key_rps: 1000 },
      networks: { anv: { family: "evm", decimals: 18, confirmations: 3, rpc_urls: [deadUrl, anvil.url], follow: true, start_height: 0, poll_interval_ms: 100 } },
    },
  });
  sink = startWebhookSink();
  payments = startWebhookSink();
  client = await td.client({ credits: 10_000_000, slots: 100 });
  const hook = await client.request("PUT", "/v1/address-watch/webhook", { url: sink.url, enabled: true, events: { block: false } });
  expect(hook.status).toBe(200);
  const settings = await client.request("PUT", "/v1/payments/settings", { webhook_url: payments.url });
  expect(settings.status).toBe(200);
});
afterAll(async () => {
  await td.stop();
  await sink.stop();
  await payments.stop();
  await anvil.stop();
});

async function watch(address: string): Promise<string> {
  const res = await client.request("POST", "/v1/address-watch/addresses", { network_slug: "anv", address });
  expect(res.status).toBe(201);
  return ((await res.json()) as Body).watch_id;
}

/** Waits (on the receiver, not a clock) until `count` webhooks match; fails after 15 s. */
function received(s: WebhookSink, match: (b: Body) => boolean, count = 1): Promise<Body[]> {
  return until(async () => s.received.map((r) => JSON.parse(r.body) as Body).filter(match), (hits) => hits.length >= count, 15_000);
}

async function eventsOf(watchId: string): Promise<Body[]> {
  const res = await client.request("GET", `/v1/address-watch/events?watch_id=${watchId}&limit=1000`);
  expect(res.status).toBe(200);
  return ((await res.json()) as Body).events;
}

async function deployToken(decimals: number): Promise<Address> {
  const hash = await anvil.wallet.deployContract({ abi: testTokenAbi, bytecode: testTokenBytecode, args: [decimals, 10n ** 30n], account: anvil.accounts[0], chain: foundry });
  return (await anvil.public.waitForTransactionReceipt({ hash })).contractAddress as Address;
}

function tokenCall(token: Address, data: `0x${string}`, extra: { value?: bigint; gas?: bigint } = {}): Promise<Hash> {
  return anvil.wallet.sendTransaction({ account: anvil.accounts[0], chain: foundry, to: token, data, ...extra });
}

describe("following an anvil node", () => {
  test("an ETH transfer to a watched address is a payment, one from a watched address a payout", async () => {
    const w = fresh();
    const wId = await watch(w);
    const sender = anvil.accounts[1];
    const senderId = await watch(sender);
    const inTx = await anvil.sendEth(anvil.accounts[0], w, (3n * ETH) / 2n);
    const outTx = await anvil.sendEth(sender, anvil.accounts[2], ETH / 4n);
    const inHeight = await anvil.mined(inTx);
    const [payment] = await received(sink, (b) => b.tx_hash === inTx);
    expect(payment).toMatchObject({ type: "payment", direction: "in", watch_id: wId, network: "anv", address: w.toLowerCase(), tx_hash: inTx, block_height: inHeight, asset: null, amount: "1.5", amount_raw: "1500000000000000000" });
    const block = await anvil.public.getBlock({ blockNumber: BigInt(inHeight) });
    expect(payment.block_hash).toBe(block.hash);
    const [payout] = await received(sink, (b) => b.tx_hash === outTx);
    expect(payout).toMatchObject({ type: "payout", direction: "out", watch_id: senderId, address: sender.toLowerCase(), asset: null, amount: "0.25" });
  });

  test("an ERC-20 transfer from a deployed token is a payment in the token, with decimals() from the contract", async () => {
    const token = await deployToken(6);
    const w = fresh();
    await watch(w);
    const tx = await tokenCall(token, encodeFunctionData({ abi: testTokenAbi, functionName: "transfer", args: [w, 2_500_000n] }));
    const [payment] = await received(sink, (b) => b.tx_hash === tx);
    expect(payment).toMatchObject({ type: "payment", direction: "in", address: w.toLowerCase(), asset: token.toLowerCase(), amount: "2.5", amount_raw: "2500000" });
  });

  test("a reverted transfer gives no event: neither its ETH value nor its Transfer log moved anything", async () => {
    const token = await deployToken(18);
    const w = fresh();
    const wId = await watch(w);
    const tokenId = await watch(token);
    const failed = await tokenCall(token, encodeFunctionData({ abi: testTokenAbi, functionName: "payAndFail", args: [w, ETH] }), { value: ETH, gas: 300_000n });
    const receipt = await anvil.public.waitForTransactionReceipt({ hash: failed });
    expect(receipt.status).toBe("reverted");
    // A later payment to the same address: once it is delivered, the reverted block was ingested before it.
    const marker = await anvil.sendEth(anvil.accounts[0], w, 1n);
    await received(sink, (b) => b.tx_hash === marker);
    expect((await eventsOf(wId)).map((e) => e.tx_hash)).toEqual([marker]);
    // The token contract, the reverted call's recipient, sees only a zero-value call: `other`, never a payment.
    const tokenEvents = (await eventsOf(tokenId)).filter((e) => e.tx_hash === failed);
    expect(tokenEvents.map((e) => [e.type, e.amount_raw])).toEqual([["other", "0"]]);
    expect(sink.received.map((r) => JSON.parse(r.body)).filter((b) => b.tx_hash === failed && b.type !== "other")).toEqual([]);
  });

  test("50 transfers mined in one block give 50 payments of that block", async () => {
    const w = fresh();
    const wId = await watch(w);
    await anvil.test.setAutomine(false);
    const hashes: Hash[] = [];
    try {
      for (let i = 1; i <= 50; i++) hashes.push(await anvil.sendEth(anvil.accounts[4], w, BigInt(i) * 1000n));
      await anvil.test.mine({ blocks: 1 });
    } finally {
      await anvil.test.setAutomine(true);
    }
    const height = await anvil.mined(hashes[0]);
    const got = await received(sink, (b) => b.address === w.toLowerCase(), 50);
    expect(got).toHaveLength(50);
    expect(new Set(got.map((b) => b.block_height))).toEqual(new Set([height]));
    expect(new Set(got.map((b) => b.tx_hash))).toEqual(new Set(hashes));
    const events = await eventsOf(wId);
    expect(events.map((e) => e.amount_raw).sort()).toEqual(hashes.map((_, i) => String((i + 1) * 1000)).sort());
  });

  test("a payment order is seen at once and paid once `confirmations` (3) blocks are mined", async () => {
    const address = fresh();
    const res = await client.request("POST", "/v1/payments", { order_id: "anvil-1", network: "anv", address, amount: "0.5" });
    expect(res.status).toBe(201);
    const order = (await res.json()) as Body;
    const tx = await anvil.sendEth(anvil.accounts[5], address, ETH / 2n);
    const [seen] = await received(payments, (b) => b.payment_id === order.payment_id);
    expect(seen).toMatchObject({ event: "seen", status: "seen", tx_hash: tx, amount_received: "0.5" });
    // One confirmation of three: nothing more until blocks are mined.
    const view = (await (await client.request("GET", `/v1/payments/${order.payment_id}`)).json()) as Body;
    expect(view.status).toBe("seen");
    await anvil.test.mine({ blocks: 2 });
    const events = await received(payments, (b) => b.payment_id === order.payment_id, 3);
    expect(events.map((b) => b.event)).toEqual(["seen", "aml_check", "paid"]);
    expect(events[2]).toMatchObject({ status: "paid", tx_hash: tx, amount_received: "0.5" });
  });

  test("the dead first upstream is counted and skipped; /metrics has the follower's gauges", async () => {
    // Everything above was read through the second upstream.
    const head = Number(await anvil.public.getBlockNumber());
    await until(
      () => td.ctx.db.selectFrom("blocks").select((eb) => eb.fn.max("height").as("h")).where("network", "=", "anv").executeTakeFirst(),
      (tip) => Number(tip?.h) >= head,
      15_000,
    );
    const text = await (await fetch(`${td.url}/metrics`)).text();
    expect(text).toMatch(new RegExp(`chainwatch_upstream_errors_total\\{network="anv",upstream="${deadUrl}"\\} [1-9]`));
    expect(text).not.toContain(`chainwatch_upstream_errors_total{network="anv",upstream="${anvil.url}"}`);
    expect(text).toMatch(/chainwatch_follower_node_height\{network="anv"\} \d+/);
    expect(text).toContain(`chainwatch_follower_stored_tip{network="anv"} ${head}`);
    expect(text).toMatch(/chainwatch_follower_lag\{network="anv"\} [01]\b/);
    const state = await td.ctx.db.selectFrom("follower_state").selectAll().where("network", "=", "anv").executeTakeFirstOrThrow();
    expect(state).toMatchObject({ upstream: anvil.url, state: "following", last_error: null });
    // The daemon leading the follower (always this one on SQLite) names itself by port and pid.
    expect(state.leader).toEndWith(`:${new URL(td.url).port} pid ${process.pid}`);
  });
});
