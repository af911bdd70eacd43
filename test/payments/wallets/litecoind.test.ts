import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { storedTip } from "../../../src/follow/core/chain-store.ts";
import { descriptorChecksum } from "../../../src/payments/wallets/descriptor-checksum.ts";
import { addressDeriver } from "../../../src/payments/wallets/derive-address.ts";
import { parseWalletKey } from "../../../src/payments/wallets/wallet-key.ts";
import { manualClock } from "../../support/clock.ts";
import { startTestDaemon, type TestClient, type TestDaemon } from "../../support/harness.ts";
import { type Litecoind, startLitecoind } from "../../support/litecoind.ts";
import { until } from "../../support/poll.ts";
import { startWebhookSink, type WebhookSink } from "../../support/webhook-sink.ts";
import { accountXpub } from "./vectors.ts";

// Payment wallets against a real Litecoin Core node (`litecoind -regtest`, Bitcoin Core's
// descriptors and JSON-RPC): every address a wallet derives is what the node's deriveaddresses
// gives for the same descriptor, and a daemon following the node sees payments to derived
// addresses from the mempool (seen), in blocks (paid), and after their orders ended (late).

type Body = Record<string, any>;

// Litecoin's regtest address forms, as the node writes them.
const LTC = { family: "btc" as const, decimals: 8, confirmations: 2, bech32_hrp: "rltc", p2pkh_version: 111, p2sh_version: 58 };
const TPUB = { public: 0x043587cf, private: 0x04358394 };
// The test phrase's master key fingerprint, for key origins.
const MASTER = "73c5da0a";

let node: Litecoind;
let td: TestDaemon;
let sink: WebhookSink;
const clock = manualClock();

const nodeHeight = () => node.rpc<number>("getblockcount");
const caughtUp = async () => {
  const h = await nodeHeight();
  await until(async () => (await storedTip(td.ctx.db, "ltc"))?.height ?? -1, (t) => t >= h, 20_000);
};
const mine = async (n: number) => {
  await node.mine(n);
  await caughtUp();
};

beforeAll(async () => {
  node = await startLitecoind();
  await node.createWallet("miner");
  await node.mine(101);
  sink = startWebhookSink();
  td = await startTestDaemon({
    clock,
    config: {
      rate_limit: { per_key_rps: 1000 },
      networks: { ltc: { ...LTC, chain: "regtest", rpc_urls: [node.url], follow: true, start_height: 0, poll_interval_ms: 50, max_reorg_depth: 8 } },
    },
  });
  await caughtUp();
}, 60_000);
afterAll(async () => {
  await td?.stop();
  await sink?.stop();
  await node?.stop();
});

/** What the node's deriveaddresses gives for a descriptor (its checksum from getdescriptorinfo) over [from, to]. */
async function nodeAddresses(descriptor: string, from: number, to: number): Promise<string[]> {
  const { checksum } = await node.rpc<{ checksum: string }>("getdescriptorinfo", [descriptor]);
  return node.rpc<string[]>("deriveaddresses", [`${descriptor}#${checksum}`, [from, to]]);
}

/** An account whose payment webhooks go to the shared receiver, with a wallet on ltc. */
async function merchant(key: string): Promise<{ c: TestClient; wallet: Body }> {
  const c = await td.client({ credits: 10_000_000 });
  expect((await c.request("PUT", "/v1/payments/settings", { webhook_url: sink.url })).status).toBe(200);
  const res = await c.request("PUT", "/v1/payments/wallets/ltc", { key });
  const wallet = (await res.json()) as Body;
  expect(res.status).toBe(200);
  return { c, wallet };
}

async function order(c: TestClient, body: Body): Promise<Body> {
  const res = await c.request("POST", "/v1/payments", { network: "ltc", ...body });
  const json = (await res.json()) as Body;
  expect(res.status).toBe(201);
  return json;
}

/** The webhooks of one order the receiver has, once `count` arrived. */
async function webhooksOf(paymentId: string, count: number): Promise<Body[]> {
  const of = () => sink.received.map((r) => JSON.parse(r.body) as Body).filter((b) => b.payment_id === paymentId);
  await until(async () => of().length, (n) => n >= count, 20_000);
  return of();
}

const tpub84 = accountXpub("m/84'/1'/0'", TPUB);
const tpub49 = accountXpub("m/49'/1'/0'", TPUB);
const tpub44 = accountXpub("m/44'/1'/0'", TPUB);

describe("addresses equal Bitcoin Core's deriveaddresses", () => {
  const KINDS: [string, string][] = [
    ["pkh", `pkh([${MASTER}/44h/1h/0h]${tpub44}/0/*)`],
    ["sh-wpkh", `sh(wpkh([${MASTER}/49h/1h/0h]${tpub49}/0/*))`],
    ["wpkh", `wpkh([${MASTER}/84h/1h/0h]${tpub84}/0/*)`],
    ["wpkh on the change branch", `wpkh(${tpub84}/1/*)`],
  ];

  test.each(KINDS)("%s: indices 0..49, with the node's own checksum", async (_kind, descriptor) => {
    const { checksum } = await node.rpc<{ checksum: string }>("getdescriptorinfo", [descriptor]);
    expect(descriptorChecksum(descriptor)).toBe(checksum);
    const parsed = parseWalletKey("btc", `${descriptor}#${checksum}`);
    if (!parsed.ok) throw new Error(parsed.error);
    const derive = addressDeriver(parsed.key, LTC);
    const ours = Array.from({ length: 50 }, (_, i) => derive(i));
    expect(ours).toEqual(await nodeAddresses(descriptor, 0, 49));
  });

  test.each([
    ["tpub", accountXpub("m/44'/1'/0'", TPUB), `pkh(${tpub44}/0/*)`],
    ["upub", accountXpub("m/49'/1'/0'", { public: 0x044a5262, private: 0x044a4e28 }), `sh(wpkh(${tpub49}/0/*))`],
    ["vpub", accountXpub("m/84'/1'/0'", { public: 0x045f1cf6, private: 0x045f18bc }), `wpkh(${tpub84}/0/*)`],
  ])("a bare %s: indices 0..49, as the descriptor its version names", async (_prefix, key, descriptor) => {
    const parsed = parseWalletKey("btc", key);
    if (!parsed.ok) throw new Error(parsed.error);
    expect(parsed.key.canonical).toBe(descriptor);
    const derive = addressDeriver(parsed.key, LTC);
    expect(Array.from({ length: 50 }, (_, i) => derive(i))).toEqual(await nodeAddresses(descriptor, 0, 49));
  });

  test("tr(): Litecoin Core 0.21 has none (BIP 86's own vectors check it, keys.test.ts)", async () => {
    await expect(node.rpc("getdescriptorinfo", [`tr(${tpub84}/0/*)`])).rejects.toThrow("is not a valid descriptor function");
  });

  test("orders made through the API take the node's addresses, index by index", async () => {
    const descriptor = `sh(wpkh(${accountXpub("m/49'/1'/7'", TPUB)}/0/*))`;
    const { c } = await merchant(descriptor);
    const made: string[] = [];
    for (let i = 0; i < 3; i++) made.push((await order(c, { order_id: `api-${i}`, amount: "0.1" })).address);
    expect(made).toEqual(await nodeAddresses(descriptor, 0, 2));
  });
});

describe("paying derived addresses from the node's wallet", () => {
  let paid: { c: TestClient; order: Body; txid: string };

  test("orders of pkh, sh(wpkh) and wpkh wallets are seen from the mempool, then paid at their confirmations", async () => {
    const merchants = await Promise.all(
      [`pkh(${accountXpub("m/44'/1'/1'", TPUB)}/0/*)`, `sh(wpkh(${accountXpub("m/49'/1'/1'", TPUB)}/0/*))`, `wpkh(${accountXpub("m/84'/1'/1'", TPUB)}/0/*)`].map(merchant),
    );
    expect(merchants.map((m) => m.wallet.kind)).toEqual(["pkh", "sh-wpkh", "wpkh"]);
    const orders = await Promise.all(merchants.map((m, i) => order(m.c, { order_id: `pay-${i}`, amount: "0.25" })));
    expect(orders[0].address).toMatch(/^[mn]/);
    expect(orders[1].address).toMatch(/^Q/);
    expect(orders[2].address).toMatch(/^rltc1q/);
    const txid = await node.sendMany(Object.fromEntries(orders.map((o) => [o.address, "0.25"])));
    // No block yet: each order is seen from the node's mempool.
    for (const o of orders) {
      const [seen] = await webhooksOf(o.payment_id, 1);
      expect(seen).toMatchObject({ event: "seen", status: "seen", tx_hash: txid, amount_received_raw: "0", address: o.address });
    }
    await mine(2);
    for (const o of orders) expect((await webhooksOf(o.payment_id, 3)).map((b) => [b.event, b.tx_hash, b.amount_received])).toEqual([["seen", txid, "0"], ["aml_check", txid, "0.25"], ["paid", txid, "0.25"]]);
    paid = { c: merchants[2].c, order: orders[2], txid };
  });

  test("a paid order paid twice: the second payment is late, listed and announced once", async () => {
    const again = await node.send(paid.order.address, "0.1");
    await mine(2);
    const bodies = await webhooksOf(paid.order.payment_id, 4);
    expect(bodies.map((b) => b.event)).toEqual(["seen", "aml_check", "paid", "late_payment"]);
    const height = await nodeHeight();
    const late = { tx_hash: again, amount: "0.1", amount_raw: "10000000", block_height: height - 1 };
    expect(bodies[3]).toMatchObject({ status: "paid", tx_hash: paid.txid, amount_received: "0.25", late_payment: late, removed: false });
    const view = (await (await paid.c.request("GET", `/v1/payments/${paid.order.payment_id}`)).json()) as Body;
    expect(view).toMatchObject({ status: "paid", amount_received: "0.25", late_payments: [late] });
    // A block later, still one announcement: the outbox holds four webhooks of the order, no more.
    await mine(1);
    const queued = await td.ctx.db.selectFrom("deliveries").select("id").where("payment_id", "=", paid.order.payment_id).execute();
    expect(queued).toHaveLength(4);
  });

  test("an expired order paid after expiry: its address is still watched, the payment is late", async () => {
    const { c } = await merchant(`wpkh(${accountXpub("m/84'/1'/2'", TPUB)}/0/*)`);
    const o = await order(c, { order_id: "expiring", amount: "0.3", expires_in_seconds: 60 });
    clock.advance(61_000);
    expect((await webhooksOf(o.payment_id, 1)).map((b) => b.event)).toEqual(["expired"]);
    const txid = await node.send(o.address, "0.3");
    await mine(1);
    const listed = (await (await c.request("GET", `/v1/payments/${o.payment_id}`)).json()) as Body;
    expect(listed).toMatchObject({ status: "expired", amount_received: "0", late_payments: [{ tx_hash: txid, amount: "0.3", amount_raw: "30000000", block_height: await nodeHeight() }] });
    await mine(1);
    const bodies = await webhooksOf(o.payment_id, 2);
    expect(bodies.map((b) => [b.event, b.status, b.late_payment?.tx_hash ?? null])).toEqual([["expired", "expired", null], ["late_payment", "expired", txid]]);
  });
});
