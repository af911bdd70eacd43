import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Abi, type Address, type Hash } from "viem";
import { foundry } from "viem/chains";
import { type Anvil, startAnvil } from "../support/anvil.ts";
import { refuserAbi, refuserBytecode, testWalletAbi, testWalletBytecode } from "../support/contracts/test-wallet.ts";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { until } from "../support/poll.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import { CLI, cleanEnv } from "../support/cli.ts";

// Native value moved inside contract calls, seen by tracing each block on a real anvil node, which
// answers both tracers: one daemon follows with callTracer (traces = "debug"), one with trace_block
// (traces = "parity"), each its own database. A smart-contract wallet (TestWallet.sol) pays,
// forwards, fails and nests; every value-moving call to or from a watched address is a hit with
// internal: true, and nothing else is.

type Body = Record<string, any>;
type Follower = { mode: string; td: TestDaemon; client: TestClient; sink: WebhookSink };

let anvil: Anvil;
let followers: Follower[];
let wallet: Address;
let refuser: Address;
let n = 0;

const fresh = (): Address => `0x${(0x1a7e0000 + ++n).toString(16).padStart(40, "0")}` as Address;

async function deploy(abi: Abi, bytecode: `0x${string}`): Promise<Address> {
  const hash = await anvil.wallet.deployContract({ abi, bytecode, account: anvil.accounts[0], chain: foundry });
  return (await anvil.public.waitForTransactionReceipt({ hash })).contractAddress as Address;
}

async function follower(mode: string): Promise<Follower> {
  const td = await startTestDaemon({
    config: {
      rate_limit: { per_key_rps: 1000 },
      networks: { anv: { family: "evm", decimals: 18, confirmations: 1, rpc_urls: [anvil.url], follow: true, start_height: 0, poll_interval_ms: 100, max_reorg_depth: 8, chain_id: 31337, traces: mode } },
    },
  });
  const sink = startWebhookSink();
  const client = await td.client({ credits: 10_000_000, slots: 50 });
  const hook = await client.request("PUT", "/v1/address-watch/webhook", { url: sink.url, enabled: true, events: { block: false } });
  expect(hook.status).toBe(200);
  return { mode, td, client, sink };
}

beforeAll(async () => {
  anvil = await startAnvil();
  wallet = await deploy(testWalletAbi as Abi, testWalletBytecode);
  refuser = await deploy(refuserAbi as Abi, refuserBytecode);
  await anvil.mined(await anvil.sendEth(anvil.accounts[0] as Address, wallet, 10n ** 18n));
  followers = await Promise.all([follower("debug"), follower("parity")]);
});
afterAll(async () => {
  for (const f of followers ?? []) {
    await f.td.stop();
    await f.sink.stop();
  }
  await anvil.stop();
});

async function watchEverywhere(address: string): Promise<void> {
  for (const f of followers) {
    const res = await f.client.request("POST", "/v1/address-watch/addresses", { network_slug: "anv", address });
    expect([200, 201]).toContain(res.status);
  }
}

function received(f: Follower, match: (b: Body) => boolean, count = 1): Promise<Body[]> {
  return until(async () => f.sink.received.map((r) => JSON.parse(r.body) as Body).filter(match), (hits) => hits.length >= count, 15_000);
}

function walletCall(functionName: string, args: unknown[], value = 0n): Promise<Hash> {
  return anvil.wallet.writeContract({ account: anvil.accounts[0], chain: foundry, address: wallet, abi: testWalletAbi as Abi, functionName, args, value });
}

describe.each(["debug", "parity"])("traces = %p", (mode) => {
  const f = () => followers.find((x) => x.mode === mode) as Follower;

  test("a contract wallet paying a watched address out of its balance is an internal payment; the wallet, watched, sees an internal payout", async () => {
    const to = fresh();
    await watchEverywhere(to);
    await watchEverywhere(wallet);
    const tx = await walletCall("pay", [to, 1234n]);
    const [payment] = await received(f(), (b) => b.tx_hash === tx && b.address === to.toLowerCase());
    expect(payment).toMatchObject({ type: "payment", direction: "in", asset: null, token_standard: null, token_id: null, amount_raw: "1234", internal: true, removed: false });
    const [payout] = await received(f(), (b) => b.tx_hash === tx && b.address === wallet.toLowerCase());
    expect(payout).toMatchObject({ type: "payout", direction: "out", amount_raw: "1234", internal: true });
  });

  test("value forwarded to two addresses is one internal payment each; the value sent to the wallet is the transaction's own", async () => {
    const [a, b] = [fresh(), fresh()];
    await watchEverywhere(a);
    await watchEverywhere(b);
    const tx = await walletCall("forward", [a, b], 11n);
    const hits = await received(f(), (x) => x.tx_hash === tx && (x.address === a.toLowerCase() || x.address === b.toLowerCase()), 2);
    expect(hits.map((h) => [h.address, h.amount_raw, h.internal])).toEqual([
      [a.toLowerCase(), "5", true],
      [b.toLowerCase(), "6", true],
    ]);
    const [into] = await received(f(), (x) => x.tx_hash === tx && x.address === wallet.toLowerCase() && x.type === "payment");
    expect(into).toMatchObject({ amount_raw: "11", internal: false });
  });

  test("a payment from a frame that reverted, or to a recipient that refused it, moves nothing; a call tree far deeper than 64 levels of JSON is read", async () => {
    const to = fresh();
    await watchEverywhere(to);
    await watchEverywhere(refuser);
    const failedFrame = await walletCall("payInFailingFrame", [to, 7n]);
    const refused = await walletCall("payIgnoringFailure", [refuser, 8n]);
    const deep = await walletCall("payDeep", [100n, to, 9n]);
    const hits = await received(f(), (x) => x.tx_hash === deep && x.address === to.toLowerCase());
    expect(hits.map((h) => [h.address, h.amount_raw, h.internal])).toEqual([[to.toLowerCase(), "9", true]]);
    // The deep payment's block is past the other two: had they moved anything, it would be here by now.
    const all = f().sink.received.map((r) => JSON.parse(r.body) as Body);
    // (The wallet, watched since the first test, has an `other` event for each: called, not paid.)
    expect(all.filter((x) => (x.tx_hash === failedFrame || x.tx_hash === refused) && (x.internal || x.address !== wallet.toLowerCase()))).toEqual([]);
    expect(all.filter((x) => x.tx_hash === failedFrame || x.tx_hash === refused).map((x) => [x.type, x.amount_raw])).toEqual([
      ["other", "0"],
      ["other", "0"],
    ]);
  });

  test("a payment order paid by the contract wallet completes", async () => {
    const to = fresh();
    const made = await f().client.request("POST", "/v1/payments", { order_id: `safe-${mode}-${to}`, network: "anv", address: to, amount: "0.000000000000005" });
    expect(made.status).toBe(201);
    const order = (await made.json()) as Body;
    await walletCall("pay", [to, 5000n]);
    const paid = await until(
      async () => (await (await f().client.request("GET", `/v1/payments/${order.payment_id}`)).json()) as Body,
      (o) => o.status === "paid",
      15_000,
    );
    expect(paid).toMatchObject({ status: "paid", amount_received_raw: "5000" });
  });

  test("a reorg orphaning an internal payment retracts it", async () => {
    const to = fresh();
    await watchEverywhere(to);
    const tx = await walletCall("pay", [to, 42n]);
    await anvil.mined(tx);
    // Both daemons follow the one node: each has the payment before the reorg takes it away.
    const seen = await Promise.all(followers.map((x) => received(x, (b) => b.tx_hash === tx && b.type === "payment")));
    const [first] = seen[followers.indexOf(f())] as Body[];
    expect(first).toMatchObject({ internal: true, removed: false });
    await anvil.rpc("anvil_reorg", [1, []]);
    // The wallet's own watch sees this transaction too (its payout, retracted as well): here, the payment's.
    const [retracted] = await received(f(), (b) => b.id === first.id && b.removed === true);
    expect(retracted).toEqual({ ...first, removed: true });
  });
});

describe("a node without the trace method", () => {
  test("stops start-up, naming the key, the method and the node's answer", async () => {
    // In front of anvil: every call passes but the tracer's, which the node says it does not know.
    const proxy = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(req) {
        const body = await req.text();
        const call = JSON.parse(body) as { id: unknown; method?: string };
        if (call.method === "debug_traceBlockByNumber") return Response.json({ jsonrpc: "2.0", id: call.id, error: { code: -32601, message: "the method debug_traceBlockByNumber does not exist/is not available" } });
        return fetch(anvil.url, { method: "POST", headers: { "Content-Type": "application/json" }, body });
      },
    });
    const dir = mkdtempSync(join(tmpdir(), "chainwatch-traces-"));
    try {
      const config = join(dir, "cw.toml");
      writeFileSync(
        config,
        [
          "[server]",
          "port = 0",
          "[database]",
          `url = "sqlite://${dir}/cw.db"`,
          "[secrets]",
          `master_key_file = "${dir}/master.key"`,
          "[networks.anv]",
          'family = "evm"',
          `rpc_urls = ["http://127.0.0.1:${proxy.port}"]`,
          "follow = true",
          'traces = "debug"',
          "",
        ].join("\n"),
      );
      const proc = Bun.spawn([process.execPath, CLI, "serve", "--config", config], { env: cleanEnv(), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
      const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
      expect({ code, stderr }).toEqual({
        code: 1,
        stderr: 'chainwatch: networks.anv.traces = "debug" needs debug_traceBlockByNumber, which the node refuses: debug_traceBlockByNumber: the method debug_traceBlockByNumber does not exist/is not available (-32601)\n',
      });
    } finally {
      proxy.stop(true);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
