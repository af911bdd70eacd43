import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Address, encodeFunctionData } from "viem";
import { foundry } from "viem/chains";
import { type Anvil, startAnvil } from "../../support/anvil.ts";
import { testTokenAbi, testTokenBytecode } from "../../support/contracts/test-token.ts";
import { startTestDaemon, type TestClient, type TestDaemon } from "../../support/harness.ts";
import { until } from "../../support/poll.ts";
import { startWebhookSink, type WebhookSink } from "../../support/webhook-sink.ts";
import { accountXpub, viemAddress } from "./vectors.ts";

// A payment wallet on an EVM chain: a real daemon following a real anvil node. Orders without an
// address take the account's next address (viem's for the same phrase and index), and are paid in
// the native coin and in an ERC-20 token sent from anvil's accounts.

type Body = Record<string, any>;
const ETH = 1_000_000_000_000_000_000n;

let anvil: Anvil;
let td: TestDaemon;
let client: TestClient;
let payments: WebhookSink;

beforeAll(async () => {
  anvil = await startAnvil();
  td = await startTestDaemon({
    config: {
      rate_limit: { per_key_rps: 1000 },
      networks: { anv: { family: "evm", decimals: 18, confirmations: 2, rpc_urls: [anvil.url], follow: true, start_height: 0, poll_interval_ms: 50 } },
    },
  });
  payments = startWebhookSink();
  client = await td.client({ credits: 10_000_000 });
  expect((await client.request("PUT", "/v1/payments/settings", { webhook_url: payments.url })).status).toBe(200);
  const wallet = await client.request("PUT", "/v1/payments/wallets/anv", { key: accountXpub("m/44'/60'/0'") });
  expect(wallet.status).toBe(200);
}, 30_000);
afterAll(async () => {
  await td?.stop();
  await payments?.stop();
  await anvil?.stop();
});

/** The webhooks of one order, once `count` arrived. */
function webhooksOf(paymentId: string, count: number): Promise<Body[]> {
  return until(async () => payments.received.map((r) => JSON.parse(r.body) as Body).filter((b) => b.payment_id === paymentId), (hits) => hits.length >= count, 15_000);
}

async function order(body: Body): Promise<Body> {
  const res = await client.request("POST", "/v1/payments", { network: "anv", ...body });
  const json = (await res.json()) as Body;
  expect(res.status).toBe(201);
  return json;
}


describe("a payment wallet on anvil", () => {
  test("an order in the native coin takes the wallet's address 0 and is paid by an ETH transfer", async () => {
    const o = await order({ order_id: "eth-1", amount: "0.5" });
    expect([o.derivation_index, o.address]).toEqual([0, viemAddress(0)]);
    const tx = await anvil.sendEth(anvil.accounts[3], o.address as Address, ETH / 2n);
    await webhooksOf(o.payment_id, 1);
    await anvil.test.mine({ blocks: 1 });
    const bodies = await webhooksOf(o.payment_id, 3);
    expect(bodies.map((b) => [b.event, b.tx_hash, b.amount_received])).toEqual([["seen", tx, "0.5"], ["aml_check", tx, "0.5"], ["paid", tx, "0.5"]]);
  });

  test("an order in an ERC-20 token takes address 1 and is paid by a token transfer", async () => {
    const deployed = await anvil.wallet.deployContract({ abi: testTokenAbi, bytecode: testTokenBytecode, args: [6, 10n ** 30n], account: anvil.accounts[0], chain: foundry });
    const token = (await anvil.public.waitForTransactionReceipt({ hash: deployed })).contractAddress as Address;
    const o = await order({ order_id: "usd-1", amount: "12.5", asset: token, decimals: 6 });
    expect([o.derivation_index, o.address, o.asset]).toEqual([1, viemAddress(1), token.toLowerCase()]);
    const tx = await anvil.wallet.sendTransaction({
      account: anvil.accounts[0],
      chain: foundry,
      to: token,
      data: encodeFunctionData({ abi: testTokenAbi, functionName: "transfer", args: [o.address as Address, 12_500_000n] }),
    });
    await webhooksOf(o.payment_id, 1);
    await anvil.test.mine({ blocks: 1 });
    const bodies = await webhooksOf(o.payment_id, 3);
    expect(bodies.map((b) => [b.event, b.tx_hash, b.amount_received, b.asset])).toEqual([
      ["seen", tx, "12.5", token.toLowerCase()],
      ["aml_check", tx, "12.5", token.toLowerCase()],
      ["paid", tx, "12.5", token.toLowerCase()],
    ]);
  });

  test("ETH sent to the paid token order's address later is no token payment: the order is not touched", async () => {
    const [first] = ((await (await client.request("GET", "/v1/payments?order_id=usd-1")).json()) as { payments: Body[] }).payments;
    await anvil.sendEth(anvil.accounts[4], first.address as Address, ETH);
    await anvil.test.mine({ blocks: 2 });
    const head = Number(await anvil.public.getBlockNumber());
    await until(async () => Number((await td.ctx.db.selectFrom("blocks").select((eb) => eb.fn.max("height").as("h")).where("network", "=", "anv").executeTakeFirst())?.h), (h) => h >= head, 15_000);
    const view = (await (await client.request("GET", `/v1/payments/${first.payment_id}`)).json()) as Body;
    expect(view).toMatchObject({ status: "paid", amount_received: "12.5", late_payments: [] });
  });
});
