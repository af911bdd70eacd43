import { afterEach, describe, expect, it } from "bun:test";
import { LeadLost } from "../../src/db/leadership.ts";
import { leadTakenOver } from "../support/lead-take-over.ts";
import { hasWaitingOrders, observeMempool } from "../../src/payments/mempool.ts";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { deliveriesWithBodies } from "../../src/delivery/outbox.ts";

// Orders on UTXO chains announce `seen` from the mempool (docs/payments.md, docs/chains.md); a mempool
// payment that leaves unmined takes it back. Driven through the use case the btc follower's mempool
// poller calls, over a real daemon's database; the payments arrive as the follower would post them.

const A = "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4";
const OTHER = "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2";
const h = (s: string) => s.padStart(64, "0");

let td: TestDaemon;
let client: TestClient;
afterEach(async () => {
  await td.stop();
});

async function start() {
  td = await startTestDaemon({ config: { networks: { btc: { family: "btc", decimals: 8, confirmations: 1 } } } });
  client = await td.client({ credits: 1_000_000 });
  const res = await client.request("POST", "/v1/payments", { order_id: "inv-1", network: "btc", address: A, amount: "0.001" });
  expect(res.status).toBe(201);
  return ((await res.json()) as { payment_id: string }).payment_id;
}

const order = async (id: string) => (await (await client.request("GET", `/v1/payments/${id}`)).json()) as { status: string; tx_hash: string | null; amount_received_raw: string };
const webhooks = async () =>
  (await deliveriesWithBodies(td.ctx.db).where("kind", "=", "payment").orderBy("sequence").execute()).map((d) => {
    const b = JSON.parse(d.body) as { event: string; tx_hash: string | null };
    return [b.event, b.tx_hash];
  });
const look = (arrived: { txid: string; to: string; value: bigint }[], present: string[], fence?: NonNullable<Parameters<typeof observeMempool>[2]>["fence"]) =>
  observeMempool(
    td.ctx.db,
    {
      network: "btc",
      arrived: arrived.map((t) => ({ txid: t.txid, outputs: [{ address: t.to, value: t.value }, { address: null, value: 0n }] })),
      present: new Set(present),
      nowMs: td.ctx.clock.now(),
    },
    { fence },
  );

describe("payment orders and the mempool", () => {
  it("a look by a follower that lost its lead writes nothing; the lead that took over after it writes", async () => {
    const id = await start();
    // The follower's daemon goes (paused past the take-over, say) and another takes the lead.
    const { old, now, close } = await leadTakenOver(td.ctx.db, td.config.database.url, "btc");

    await expect(look([{ txid: h("t1"), to: A, value: 100_000n }], [h("t1")], old.fence)).rejects.toBeInstanceOf(LeadLost);
    expect(await order(id)).toMatchObject({ status: "pending", tx_hash: null });
    expect(await td.ctx.db.selectFrom("mempool_transfers").selectAll().execute()).toEqual([]);
    expect(await webhooks()).toEqual([]);
    expect(await look([{ txid: h("t1"), to: A, value: 100_000n }], [h("t1")], now.fence)).toBe(1);
    expect(await webhooks()).toEqual([["seen", h("t1")]]);
    await close();
  });

  it("a mempool payment announces seen at once; the block then counts it, once", async () => {
    const id = await start();
    expect(await hasWaitingOrders(td.ctx.db, "btc")).toBe(true);
    expect(await look([{ txid: h("t1"), to: A, value: 100_000n }], [h("t1")])).toBe(1);
    expect(await order(id)).toMatchObject({ status: "seen", tx_hash: h("t1"), amount_received_raw: "0" });
    expect(await webhooks()).toEqual([["seen", h("t1")]]);

    // Mined: the block confirms it (1 confirmation) and the order moves on; seen is not sent again.
    const block = { network: "btc", height: 1, hash: h("b1"), parent_hash: h("b0"), timestamp: 1, transactions: [{ hash: h("t1"), value: "0", outputs: [{ address: A, value: "100000" }] }] };
    expect((await td.ingest(block)).status).toBe(202);
    // (The local AML screening may already have finished it.)
    expect(await order(id)).toMatchObject({ status: expect.stringMatching(/^(aml_check|paid)$/), tx_hash: h("t1"), amount_received_raw: "100000" });
    // The next look finds it gone from the mempool: mined, so nothing moves back.
    expect(await look([], [])).toBe(0);
    expect(await td.ctx.db.selectFrom("mempool_transfers").selectAll().execute()).toEqual([]);
    expect((await webhooks()).map((w) => w[0]).slice(0, 2)).toEqual(["seen", "aml_check"]);
    expect((await webhooks()).filter((w) => w[0] === "seen")).toHaveLength(1);
  });

  it("a mempool payment that leaves unmined puts the order back to waiting, silently", async () => {
    const id = await start();
    await look([{ txid: h("t1"), to: A, value: 100_000n }], [h("t1")]);
    expect(await look([], [])).toBe(1);
    expect(await order(id)).toMatchObject({ status: "pending", tx_hash: null });
    expect(await webhooks()).toEqual([["seen", h("t1")]]);
    // A replacement arrives: the order is seen again, without a second seen webhook.
    await look([{ txid: h("t2"), to: A, value: 100_000n }], [h("t2")]);
    expect(await order(id)).toMatchObject({ status: "seen", tx_hash: h("t2") });
    expect(await webhooks()).toEqual([["seen", h("t1")]]);
  });

  it("while another mempool payment still stands for the order, it stays seen and names that one", async () => {
    const id = await start();
    await look([{ txid: h("t1"), to: A, value: 50_000n }, { txid: h("t2"), to: A, value: 50_000n }], [h("t1"), h("t2")]);
    expect(await order(id)).toMatchObject({ status: "seen", tx_hash: h("t1") });
    expect(await look([], [h("t2")])).toBe(0);
    expect(await order(id)).toMatchObject({ status: "seen", tx_hash: h("t2") });
  });

  it("ignores payments to other addresses and orders past their first payment", async () => {
    const id = await start();
    expect(await look([{ txid: h("t1"), to: OTHER, value: 1n }], [h("t1")])).toBe(0);
    expect(await order(id)).toMatchObject({ status: "pending" });
    await td.ctx.db.updateTable("payments").set({ status: "expired" }).where("id", "=", id).execute();
    expect(await hasWaitingOrders(td.ctx.db, "btc")).toBe(false);
    expect(await look([{ txid: h("t2"), to: A, value: 100_000n }], [h("t2")])).toBe(0);
    expect(await td.ctx.db.selectFrom("mempool_transfers").selectAll().execute()).toEqual([]);
  });
});
