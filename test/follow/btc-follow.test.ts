import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { storedHashAt, storedTip } from "../../src/follow/core/chain-store.ts";
import { until } from "../delivery/fixtures.ts";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { type Litecoind, startLitecoind } from "../support/litecoind.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";

// A real daemon following a real Litecoin Core node (`litecoind -regtest`, Bitcoin Core's JSON-RPC)
// and delivering to real receivers (docs/chains.md): payments to bech32, p2sh and legacy
// addresses, a payout found through the spent-output index, 100 payments in one block, a reorg
// with invalidateblock and a longer branch, min_confirmations, and a payment order seen from the
// mempool before its block.

type Body = Record<string, any>;

let node: Litecoind;
let td: TestDaemon;

const tip = async () => (await storedTip(td.ctx.db, "ltc"))?.height ?? -1;
const nodeHeight = () => node.rpc<number>("getblockcount");
const caughtUp = async () => {
  const h = await nodeHeight();
  await until(tip, (t) => t >= h, 20_000);
};
/** Mines `n` blocks and waits until the daemon has stored them. */
const mine = async (n = 1) => {
  const hashes = await node.mine(n);
  await caughtUp();
  return hashes;
};

beforeAll(async () => {
  node = await startLitecoind();
  await node.createWallet("miner");
  // Coinbase outputs spend after 100 blocks.
  await node.mine(101);
  td = await startTestDaemon({
    config: {
      rate_limit: { per_key_rps: 1000 },
      networks: {
        ltc: {
          family: "btc",
          decimals: 8,
          confirmations: 2,
          bech32_hrp: "rltc",
          p2pkh_version: 111,
          p2sh_version: 58,
          chain: "regtest",
          rpc_urls: [node.url],
          follow: true,
          start_height: 0,
          poll_interval_ms: 50,
          max_reorg_depth: 8,
        },
      },
    },
  });
  await caughtUp();
}, 60_000);
afterAll(async () => {
  await td?.stop();
  await node?.stop();
});

/** An account whose webhooks go to a fresh receiver, with extra filter keys. */
async function subscriber(filters: Record<string, unknown> = {}): Promise<{ client: TestClient; sink: WebhookSink }> {
  const sink = startWebhookSink();
  const client = await td.client({ credits: 100_000_000, slots: 200 });
  const res = await client.request("PUT", "/v1/address-watch/webhook", { url: sink.url, enabled: true, events: { block: false, ...filters } });
  expect(res.status).toBe(200);
  return { client, sink };
}

async function watch(client: TestClient, address: string): Promise<string> {
  const res = await client.request("POST", "/v1/address-watch/addresses", { network_slug: "ltc", address });
  expect(res.status).toBe(201);
  return ((await res.json()) as Body).watch_id;
}

/** Waits (on the receiver) until `count` webhooks match. */
async function received(sink: WebhookSink, match: (b: Body) => boolean, count = 1): Promise<Body[]> {
  const hits = () => sink.received.map((r) => JSON.parse(r.body) as Body).filter(match);
  await until(async () => hits().length, (k) => k >= count, 20_000);
  return hits();
}

async function listing(client: TestClient, query = ""): Promise<Body[]> {
  const res = await client.request("GET", `/v1/address-watch/events?limit=1000${query}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as Body).events;
}

describe("following litecoind -regtest", () => {
  test("payments to bech32, p2sh-segwit and legacy watched addresses arrive with exact amounts", async () => {
    const { client, sink } = await subscriber();
    const bech32 = await node.newAddress("bech32");
    const p2sh = await node.newAddress("p2sh-segwit");
    const legacy = await node.newAddress("legacy");
    expect([bech32.slice(0, 5), p2sh[0], "mn".includes(legacy[0])]).toEqual(["rltc1", "Q", true]);
    const ids = [await watch(client, bech32.toUpperCase()), await watch(client, p2sh), await watch(client, legacy)];
    const txid = await node.sendMany({ [bech32]: "1.5", [p2sh]: "0.00010001", [legacy]: "21.12345678" });
    const [hash] = await mine();
    const got = await received(sink, (b) => b.tx_hash === txid, 3);
    const byWatch = new Map(got.map((b) => [b.watch_id, b]));
    expect(ids.map((id) => [byWatch.get(id)?.address, byWatch.get(id)?.amount, byWatch.get(id)?.amount_raw])).toEqual([
      [bech32, "1.5", "150000000"],
      [p2sh, "0.00010001", "10001"],
      [legacy, "21.12345678", "2112345678"],
    ]);
    expect(got[0]).toMatchObject({ type: "payment", direction: "in", network: "ltc", asset: null, block_hash: hash, block_height: await nodeHeight(), removed: false });
  });

  test("spending an output that paid a watched address is a payout of the spent amount", async () => {
    const { client, sink } = await subscriber();
    await node.rpc("createwallet", ["payer"]);
    const payer = await node.rpc<string>("getnewaddress", ["", "bech32"], "payer");
    await watch(client, payer);
    const funding = await node.rpc<string>("sendtoaddress", [payer, "3"], "miner");
    await mine();
    await received(sink, (b) => b.tx_hash === funding && b.type === "payment");
    // The payer's one output must be spent: 1 LTC out, the change to an address nobody watches.
    const elsewhere = await node.rpc<string>("getnewaddress", ["", "bech32"], "miner");
    const spend = await node.rpc<string>("sendtoaddress", [elsewhere, "1"], "payer");
    await mine();
    const [payout] = await received(sink, (b) => b.tx_hash === spend);
    expect(payout).toMatchObject({ type: "payout", direction: "out", address: payer, amount: "3", amount_raw: "300000000" });
    expect(sink.received.filter((r) => JSON.parse(r.body).tx_hash === spend)).toHaveLength(1);
  });

  test("100 payments in one block give 100 events, each once", async () => {
    const { client, sink } = await subscriber();
    const addresses: string[] = [];
    for (let i = 0; i < 100; i++) addresses.push(await node.newAddress(i % 2 === 0 ? "bech32" : "legacy"));
    for (const a of addresses) await watch(client, a);
    // 0.00100001 … 0.00100100: above the dust limit, each one distinct.
    const amounts = Object.fromEntries(addresses.map((a, i) => [a, `0.00${100_001 + i}`]));
    const txid = await node.sendMany(amounts);
    await mine();
    const got = await received(sink, (b) => b.tx_hash === txid, 100);
    expect(got).toHaveLength(100);
    expect(new Set(got.map((b) => b.address)).size).toBe(100);
    expect(got.map((b) => [b.address, b.amount_raw]).sort()).toEqual(addresses.map((a, i) => [a, String(100_001 + i)]).sort());
  });

  test("min_confirmations: 3 holds a payment until its block has 3 confirmations", async () => {
    const { client, sink } = await subscriber({ min_confirmations: 3 });
    const a = await node.newAddress("bech32");
    await watch(client, a);
    const txid = await node.send(a, "0.25");
    await mine(2);
    // Two confirmations: stored and listed, not delivered.
    expect((await listing(client)).filter((e) => e.tx_hash === txid)).toHaveLength(1);
    expect(sink.received).toHaveLength(0);
    await mine(1);
    const [payment] = await received(sink, (b) => b.tx_hash === txid);
    expect(payment).toMatchObject({ type: "payment", amount: "0.25" });
  });
});

describe("reorgs and payment orders", () => {
  /**
   * A transaction of `wallet` spending the same outputs as `txid` (one of its payments) back to the
   * wallet: mined in a block, it evicts `txid` from the mempool for good.
   */
  async function conflicting(wallet: string, txid: string): Promise<string> {
    const { hex } = await node.rpc<{ hex: string }>("gettransaction", [txid], wallet);
    const tx = await node.rpc<{ vin: { txid: string; vout: number }[] }>("decoderawtransaction", [hex]);
    let total = 0n;
    for (const i of tx.vin) {
      const prev = await node.rpc<{ hex: string }>("gettransaction", [i.txid], wallet);
      const prevTx = await node.rpc<{ vout: { value: number }[] }>("decoderawtransaction", [prev.hex]);
      total += BigInt(Math.round(prevTx.vout[i.vout].value * 1e8));
    }
    const sats = total - 100_000n;
    const back = await node.rpc<string>("getnewaddress", ["", "bech32"], wallet);
    const raw = await node.rpc<string>("createrawtransaction", [tx.vin.map((i) => ({ txid: i.txid, vout: i.vout })), { [back]: `${sats / 100_000_000n}.${String(sats % 100_000_000n).padStart(8, "0")}` }]);
    const signed = await node.rpc<{ hex: string; complete: boolean }>("signrawtransactionwithwallet", [raw], wallet);
    expect(signed.complete).toBe(true);
    return signed.hex;
  }

  test("an order is seen from the mempool before its block, then paid at its confirmations", async () => {
    const { client, sink } = await subscriber();
    const res = await client.request("PUT", "/v1/payments/settings", { webhook_url: sink.url });
    expect(res.status).toBe(200);
    const address = await node.newAddress("bech32");
    const created = await client.request("POST", "/v1/payments", { order_id: "ltc-1", network: "ltc", address, amount: "0.5" });
    expect(created.status).toBe(201);
    const id = ((await created.json()) as Body).payment_id;
    const txid = await node.send(address, "0.5");
    // No block yet: the mempool look announces it.
    const [seen] = await received(sink, (b) => b.payment_id === id && b.event === "seen");
    expect(seen).toMatchObject({ status: "seen", tx_hash: txid, amount_received_raw: "0" });
    expect(await nodeHeight()).toBe(await tip());
    await mine(2);
    const [paid] = await received(sink, (b) => b.payment_id === id && b.event === "paid");
    expect(paid).toMatchObject({ status: "paid", tx_hash: txid, amount_received: "0.5" });
    expect(sink.received.map((r) => JSON.parse(r.body)).filter((b) => b.payment_id === id).map((b) => b.event)).toEqual(["seen", "aml_check", "paid"]);
  });

  test("invalidateblock and a longer branch: removed: true re-deliveries; a paid order stays paid, a seen one whose payment was double-spent away waits again", async () => {
    const { client, sink } = await subscriber();
    await client.request("PUT", "/v1/payments/settings", { webhook_url: sink.url });
    const order = async (orderId: string, address: string) => {
      const res = await client.request("POST", "/v1/payments", { order_id: orderId, network: "ltc", address, amount: "0.1" });
      expect(res.status).toBe(201);
      return ((await res.json()) as Body).payment_id as string;
    };
    const paidAddress = await node.newAddress("bech32");
    const seenAddress = await node.newAddress("bech32");
    const watched = await node.newAddress("bech32");
    await watch(client, watched);
    const paidId = await order("reorg-paid", paidAddress);
    const seenId = await order("reorg-seen", seenAddress);

    // The payments come from a wallet funded below the fork, so they stay valid on either branch
    // (the miner's young coinbase outputs would not be spendable at the fork's height).
    await node.rpc("createwallet", ["reorg"]);
    const funds = [await node.rpc<string>("getnewaddress", ["", "bech32"], "reorg"), await node.rpc<string>("getnewaddress", ["", "bech32"], "reorg")];
    await node.sendMany({ [funds[0]]: "1", [funds[1]]: "1" });
    await mine(1);

    // Fork point F; the old branch: P (pays the first order and the watched address), then two
    // blocks (the first order reaches its 2 confirmations and is paid), then S (pays the second).
    const fork = await tip();
    const paying = await node.rpc<string>("sendmany", ["", { [paidAddress]: "0.1", [watched]: "0.2" }], "reorg");
    const [p] = await mine(1);
    await mine(1);
    await received(sink, (b) => b.payment_id === paidId && b.event === "paid");
    const seenPayment = await node.rpc<string>("sendtoaddress", [seenAddress, "0.1"], "reorg");
    const [s] = await mine(1);
    await received(sink, (b) => b.payment_id === seenId && b.event === "seen");
    const [watchedPayment] = await received(sink, (b) => b.tx_hash === paying && b.address === watched);

    // The node drops the old branch. The new one is longer (4 blocks above F): its first block holds
    // the first payment again and a transaction spending what the second order's payment spent, so
    // that payment leaves the mempool for good (as a double spend would take it away).
    await node.rpc("invalidateblock", [p]);
    const miner = await node.newAddress("bech32");
    await node.rpc("generateblock", [miner, [paying, await conflicting("reorg", seenPayment)]]);
    await node.mine(3, miner);
    const newTop = await node.rpc<string>("getblockhash", [fork + 4]);
    await until(() => storedHashAt(td.ctx.db, "ltc", fork + 4), (h) => h === newTop, 20_000);

    // The watched address's payment in P is retracted, and delivered again from its new block.
    const [removed] = await received(sink, (b) => b.id === watchedPayment.id && b.removed === true);
    expect(removed).toEqual({ ...watchedPayment, removed: true });
    const again = await received(sink, (b) => b.tx_hash === paying && b.address === watched && b.removed === false, 2);
    expect(again[1].block_hash).not.toBe(p);
    expect((await listing(client)).filter((e) => e.block_hash === s || e.block_hash === p).every((e) => e.removed)).toBe(true);

    const get = async (id: string) => ((await (await client.request("GET", `/v1/payments/${id}`)).json()) as Body).status;
    expect(await get(paidId)).toBe("paid");
    await until(() => get(seenId), (st) => st === "pending", 20_000);
    const seenEvents = sink.received.map((r) => JSON.parse(r.body)).filter((b) => b.payment_id === seenId).map((b) => b.event);
    expect(seenEvents).toEqual(["seen"]);
  });
});
