import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { startWebhookSink } from "../support/webhook-sink.ts";
import { blockMaker, bodies, createOrder, freshAddress, freshTxHash, ingestOk, readOrder, setPaymentWebhook } from "../payments/support.ts";
import { until } from "../support/poll.ts";

// NFT and internal transfers as an indexer posts them to /ingest/blocks: what the wallet events
// say, what the webhook filters let through, and what payment orders count.

const NFT = "0x00000000000000000000000000000000000fe721";
const MULTI = "0x0000000000000000000000000000000000fe1155";
const SAFE = "0x000000000000000000000000000000000005afe0";
const ETH = 10n ** 18n;

const block = blockMaker("eth", 5_000);
let td: TestDaemon;
let riskDir: string;

beforeAll(async () => {
  // The contract that pays is on the risk list: an order it completes fails screening.
  riskDir = mkdtempSync(join(tmpdir(), "chainwatch-risk-"));
  const riskList = join(riskDir, "risk.json");
  writeFileSync(riskList, JSON.stringify([{ address: SAFE, score: 90, risk_level: "high", hacking_event: "", address_label: "Drainer", detail_list: [], risk_detail: [] }]));
  td = await startTestDaemon({ config: { networks: { eth: { family: "evm", decimals: 18, confirmations: 1 } }, aml: { provider: "local", risk_list: riskList } } });
});
afterAll(async () => {
  await td.stop();
  rmSync(riskDir, { recursive: true, force: true });
});

async function eventsOf(c: TestClient, watchId: string): Promise<Record<string, any>[]> {
  const res = await c.request("GET", `/v1/address-watch/events?watch_id=${watchId}&limit=1000`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { events: Record<string, any>[] }).events;
}

describe("NFT and internal transfers from the feed", () => {
  test("an NFT received is a payment and one sent a payout, each with its standard, token id and whole-token amount; the filters treat them so", async () => {
    const sink = startWebhookSink();
    try {
      const c = await td.client({ credits: 1_000_000 });
      // Payments only: the payout below is stored and listed, never delivered.
      const hook = await c.request("PUT", "/v1/address-watch/webhook", { url: sink.url, enabled: true, events: { payment: true, payout: false, block: false } });
      expect(hook.status).toBe(200);
      const w = freshAddress();
      const added = await c.request("POST", "/v1/address-watch/addresses", { network_slug: "eth", address: w });
      const watchId = ((await added.json()) as { watch_id: string }).watch_id;
      const other = freshAddress("7");
      const [mint, sale] = [freshTxHash(), freshTxHash()];
      await ingestOk(
        td,
        block([
          {
            hash: mint,
            from: other,
            to: MULTI,
            value: "0",
            transfers: [
              { asset: NFT, from: "0x0000000000000000000000000000000000000000", to: w, value: "1", token_standard: "erc721", token_id: "42" },
              { asset: MULTI, from: other, to: w, value: "10", token_standard: "erc1155", token_id: "3" },
              { asset: MULTI, from: other, to: w, value: "0", token_standard: "erc1155", token_id: "4" },
            ],
          },
          { hash: sale, from: w, to: NFT, value: "0", transfers: [{ asset: NFT, from: w, to: other, value: "1", token_standard: "erc721", token_id: "42" }] },
        ]),
      );
      const listed = await eventsOf(c, watchId);
      expect(listed.map((e) => [e.tx_hash, e.type, e.direction, e.asset, e.token_standard, e.token_id, e.amount, e.amount_raw, e.internal])).toEqual([
        [mint, "payment", "in", NFT, "erc721", "42", "1", "1", false],
        [mint, "payment", "in", MULTI, "erc1155", "3", "10", "10", false],
        [mint, "other", "in", MULTI, "erc1155", "4", "0", "0", false],
        [sale, "payout", "out", NFT, "erc721", "42", "1", "1", false],
      ]);
      // The payment filter takes what comes in (the zero-amount `other` too), never what goes out.
      // Webhooks are not delivered in any promised order: compared as sets.
      const delivered = bodies(await sink.waitFor(3));
      expect(delivered.map((b) => [b.type, b.token_standard, b.token_id]).sort()).toEqual([
        ["other", "erc1155", "4"],
        ["payment", "erc1155", "3"],
        ["payment", "erc721", "42"],
      ]);
      // Each delivered body is byte for byte the listed event.
      expect(sink.received.map((r) => r.body).sort()).toEqual(listed.slice(0, 3).map((e) => JSON.stringify(e)).sort());
    } finally {
      await sink.stop();
    }
  });

  test("a payment order counts native value a contract paid it inside its execution, screens the contract, and counts no NFT", async () => {
    const sink = startWebhookSink();
    try {
      const c = await td.client({ credits: 1_000_000 });
      await setPaymentWebhook(c, sink.url);
      const address = freshAddress();
      const native = await createOrder(c, { order_id: "safe-1", network: "eth", address, amount: "0.5" });
      const nftOrder = await createOrder(c, { order_id: "nft-1", network: "eth", address: freshAddress(), asset: NFT, decimals: 0, amount: "1" });
      const signer = freshAddress("5");
      const tx = freshTxHash();
      await ingestOk(
        td,
        block([
          {
            hash: tx,
            from: signer,
            to: SAFE,
            value: "0",
            transfers: [
              // The NFT to the native order's address and to the NFT order's own: neither pays.
              { asset: NFT, from: SAFE, to: address, value: "1", token_standard: "erc721", token_id: "1" },
              { asset: NFT, from: SAFE, to: nftOrder.address, value: "1", token_standard: "erc721", token_id: "2" },
              { from: SAFE, to: address, value: String(ETH / 2n), internal: true },
            ],
          },
        ]),
      );
      const [seen] = bodies(await sink.waitFor(1));
      expect(seen).toMatchObject({ payment_id: native.payment_id, event: "seen", tx_hash: tx, amount_received: "0.5" });
      // Confirmed by the next block, then screened: the sender is the contract that paid (on the
      // risk list), not the account that signed the transaction.
      await ingestOk(td, block());
      const done = await until(() => readOrder(c, native.payment_id), (o) => o.status === "failed");
      expect(done).toMatchObject({ tx_hash: tx, amount_received: "0.5", aml: { risk_level: "high", address_label: "Drainer" } });
      expect(await readOrder(c, nftOrder.payment_id)).toMatchObject({ status: "pending", amount_received: "0", tx_hash: null });
      const transfers = await td.ctx.db.selectFrom("payment_transfers").select(["payment_id", "movement"]).where("tx_hash", "=", tx).execute();
      expect(transfers).toEqual([{ payment_id: native.payment_id, movement: 3 }]);
    } finally {
      await sink.stop();
    }
  });
});
