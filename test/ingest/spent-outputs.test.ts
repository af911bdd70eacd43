import { afterEach, describe, expect, it } from "bun:test";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";

// UTXO blocks through POST /ingest/blocks (docs/chains.md): outputs paying a watched
// address are payments; inputs spending them are payouts, found through the spent-output index that
// the ingest keeps and that a reorg undoes.

const W = "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4";
const LEGACY = "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2";
const STRANGER = "3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy";

const h = (n: number | string) => String(n).padStart(64, "0");
type Out = { address: string | null; value: string };
type Tx = { hash: string; value: "0"; inputs?: { txid: string; vout: number }[]; outputs: Out[] };
const tx = (id: string, outputs: Out[], inputs: { txid: string; vout: number }[] = []): Tx => ({ hash: h(id), value: "0", inputs, outputs });
const block = (height: number, hash: string, parent: string, transactions: Tx[]) => ({
  network: "btc",
  height,
  hash: h(hash),
  parent_hash: h(parent),
  timestamp: 1_763_750_000 + height,
  transactions,
});

let td: TestDaemon;
let client: TestClient;
afterEach(async () => {
  await td.stop();
});

async function start(watch: string[] = [W, LEGACY]) {
  td = await startTestDaemon({ config: { networks: { btc: { family: "btc", decimals: 8, confirmations: 2, max_reorg_depth: 6 } } } });
  client = await td.client({ credits: 1_000_000 });
  for (const address of watch) {
    const res = await client.request("POST", "/v1/address-watch/addresses", { network_slug: "btc", address });
    expect(res.status).toBe(201);
  }
}

async function ingest(batch: unknown) {
  const res = await td.ingest(batch);
  return { status: res.status, body: await res.json() };
}

type Listed = { type: string; direction: string; address: string; tx_hash: string; block_hash: string; amount: string; amount_raw: string; removed: boolean };
async function wallet(): Promise<Listed[]> {
  const res = await client.request("GET", "/v1/address-watch/events?limit=1000");
  return ((await res.json()) as { events: Listed[] }).events.filter((e) => e.type !== "block");
}
const brief = (e: Listed) => [e.type, e.address, e.tx_hash.slice(-2), e.amount_raw, e.removed];

const outputsRow = async () =>
  (await td.ctx.db.selectFrom("watched_outputs").select(["txid", "vout", "address", "value_raw", "spent_txid"]).orderBy("txid").orderBy("vout").execute()).map((r) => ({
    ...r,
    vout: Number(r.vout),
  }));

describe("UTXO payments and payouts", () => {
  it("sums a transaction's outputs per address, and a spend of them is one payout of the gross amount", async () => {
    await start();
    // a1 pays W twice (vout 1 and 2) and a stranger once; coinbase-like: no inputs.
    const b1 = block(1, "b1", "b0", [tx("a1", [{ address: STRANGER, value: "1" }, { address: W, value: "50000" }, { address: W.toUpperCase(), value: "30000" }])]);
    expect(await ingest(b1)).toEqual({ status: 202, body: { blocks: 1, events: 2 } });
    // a2 spends both of W's outputs and an output nobody watches, pays 10000 back to W and 5 to LEGACY.
    const spend = tx("a2", [{ address: W, value: "10000" }, { address: LEGACY, value: "5" }, { address: null, value: "0" }], [
      { txid: h("a1"), vout: 0 },
      { txid: h("a1"), vout: 2 },
      { txid: h("a1"), vout: 1 },
    ]);
    expect(await ingest(block(2, "b2", "b1", [spend]))).toEqual({ status: 202, body: { blocks: 1, events: 4 } });
    expect((await wallet()).map(brief)).toEqual([
      ["payment", W, "a1", "80000", false],
      ["payment", W, "a2", "10000", false],
      ["payment", LEGACY, "a2", "5", false],
      ["payout", W, "a2", "80000", false],
    ]);
    expect(await outputsRow()).toEqual([
      { txid: h("a1"), vout: 1, address: W, value_raw: "50000", spent_txid: h("a2") },
      { txid: h("a1"), vout: 2, address: W, value_raw: "30000", spent_txid: h("a2") },
      { txid: h("a2"), vout: 0, address: W, value_raw: "10000", spent_txid: null },
      { txid: h("a2"), vout: 1, address: LEGACY, value_raw: "5", spent_txid: null },
    ]);
  });

  it("finds a spend of an output created earlier in the same block and the same batch", async () => {
    await start();
    const batch = [
      block(1, "b1", "b0", [tx("a1", [{ address: W, value: "700" }]), tx("a2", [{ address: LEGACY, value: "600" }], [{ txid: h("a1"), vout: 0 }])]),
      block(2, "b2", "b1", [tx("a3", [{ address: STRANGER, value: "600" }], [{ txid: h("a2"), vout: 0 }])]),
    ];
    expect((await ingest(batch)).status).toBe(202);
    expect((await wallet()).map(brief)).toEqual([
      ["payment", W, "a1", "700", false],
      ["payment", LEGACY, "a2", "600", false],
      ["payout", W, "a2", "700", false],
      ["payout", LEGACY, "a3", "600", false],
    ]);
  });

  it("keeps no output of an address nobody watches, and a watch added later knows nothing of earlier outputs", async () => {
    await start([W]);
    await ingest(block(1, "b1", "b0", [tx("a1", [{ address: LEGACY, value: "900" }])]));
    expect(await outputsRow()).toEqual([]);
    expect((await client.request("POST", "/v1/address-watch/addresses", { network_slug: "btc", address: LEGACY })).status).toBe(201);
    await ingest(block(2, "b2", "b1", [tx("a2", [{ address: STRANGER, value: "900" }], [{ txid: h("a1"), vout: 0 }])]));
    expect((await wallet()).map(brief)).toEqual([]);
  });
});

describe("UTXO reorgs", () => {
  it("a spend in an orphaned block is undone: its payout is removed, and the output can be spent again", async () => {
    await start();
    await ingest([block(1, "b1", "b0", [tx("a1", [{ address: W, value: "400" }])]), block(2, "b2", "b1", [tx("a2", [{ address: STRANGER, value: "400" }], [{ txid: h("a1"), vout: 0 }])])]);
    expect((await outputsRow())[0].spent_txid).toBe(h("a2"));

    // c2 replaces b2 and spends nothing.
    expect((await ingest(block(2, "c2", "b1", []))).status).toBe(202);
    expect((await outputsRow())[0].spent_txid).toBeNull();
    expect((await wallet()).map(brief)).toEqual([
      ["payment", W, "a1", "400", false],
      ["payout", W, "a2", "400", true],
    ]);

    // c3 spends it in another transaction.
    await ingest(block(3, "c3", "c2", [tx("a3", [{ address: STRANGER, value: "400" }], [{ txid: h("a1"), vout: 0 }])]));
    expect((await wallet()).map(brief)).toEqual([
      ["payment", W, "a1", "400", false],
      ["payout", W, "a2", "400", true],
      ["payout", W, "a3", "400", false],
    ]);
    expect((await outputsRow())[0].spent_txid).toBe(h("a3"));
  });

  it("an output created in an orphaned block is forgotten, so spending it is no payout", async () => {
    await start();
    await ingest(block(1, "b1", "b0", []));
    await ingest(block(2, "b2", "b1", [tx("a1", [{ address: W, value: "300" }])]));
    expect(await outputsRow()).toHaveLength(1);
    await ingest(block(2, "c2", "b1", []));
    expect(await outputsRow()).toEqual([]);
    await ingest(block(3, "c3", "c2", [tx("a2", [{ address: STRANGER, value: "300" }], [{ txid: h("a1"), vout: 0 }])]));
    expect((await wallet()).map(brief)).toEqual([["payment", W, "a1", "300", true]]);
  });
});

describe("the UTXO ingest shape", () => {
  it("refuses an output without a value and an input without vout, naming the field, and stores nothing", async () => {
    await start();
    expect(await ingest(block(1, "b1", "b0", [{ hash: h("a1"), value: "0", outputs: [{ address: W } as Out] }]))).toEqual({
      status: 400,
      body: { error: "transactions[0].outputs[0].value is required" },
    });
    expect(await ingest(block(1, "b1", "b0", [tx("a1", [], [{ txid: h("a0") } as { txid: string; vout: number }])]))).toEqual({
      status: 400,
      body: { error: "transactions[0].inputs[0].vout is required" },
    });
    expect(await td.ctx.db.selectFrom("blocks").select("hash").execute()).toEqual([]);
  });

  it("refuses a transaction with both token transfers and outputs", async () => {
    await start();
    const mixed = { hash: h("a1"), value: "0" as const, outputs: [{ address: W, value: "1" }], transfers: [{ asset: "x", to: W, value: "1" }] };
    expect(await ingest([block(1, "b1", "b0", []), block(2, "b2", "b1", [tx("a0", []), mixed])])).toEqual({
      status: 400,
      body: { error: "[1].transactions[1] has both transfers and outputs: a UTXO transaction carries no token transfers" },
    });
  });

  it("refuses an output, or outputs together, of more than the network's max_money, and stores nothing", async () => {
    await start();
    const MAX = "2100000000000000"; // 21 million coins in satoshi: Bitcoin's MAX_MONEY, the default
    expect(await ingest([block(1, "b1", "b0", []), block(2, "b2", "b1", [tx("a1", [{ address: W, value: "2100000000000001" }])])])).toEqual({
      status: 400,
      body: { error: "[1].transactions[0].outputs[0].value is more than 21000000 coins ([networks.btc] max_money)" },
    });
    expect(await ingest(block(1, "b1", "b0", [tx("a1", [{ address: W, value: "1" }, { address: LEGACY, value: MAX }])]))).toEqual({
      status: 400,
      body: { error: "transactions[0].outputs is more than 21000000 coins ([networks.btc] max_money) together (by outputs[1])" },
    });
    expect(await td.ctx.db.selectFrom("blocks").select("hash").execute()).toEqual([]);
    expect(await ingest(block(1, "b1", "b0", [tx("a1", [{ address: W, value: MAX }])]))).toEqual({ status: 202, body: { blocks: 1, events: 2 } });
    expect((await wallet()).map(brief)).toEqual([["payment", W, "a1", MAX, false]]);
  });

  it("holds a network to its own max_money: Litecoin's 84 million coins", async () => {
    td = await startTestDaemon({ config: { networks: { btc: { family: "btc", decimals: 8, max_money: 84_000_000 } } } });
    expect(await ingest(block(1, "b1", "b0", [tx("a1", [{ address: W, value: "8400000000000000" }])]))).toMatchObject({ status: 202 });
    expect(await ingest(block(2, "b2", "b1", [tx("a2", [{ address: W, value: "8400000000000001" }])]))).toEqual({
      status: 400,
      body: { error: "transactions[0].outputs[0].value is more than 84000000 coins ([networks.btc] max_money)" },
    });
  });
});
