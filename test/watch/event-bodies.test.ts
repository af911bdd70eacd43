import { describe, expect, it } from "bun:test";
import type { TransactionInput } from "../../src/ingest/batch-schema.ts";
import { toIngestedBlock } from "../../src/ingest/block-from-feed.ts";
import { blockEventBody, walletEventBody } from "../../src/watch/event-bodies.ts";
import { hitsOf, type WatchRef } from "../../src/watch/matcher.ts";

const W = "0x1111111111111111111111111111111111111111";
const X = "0x2222222222222222222222222222222222222222";
const C = "0x3333333333333333333333333333333333333333";
const USDT = "0xdAC17F958D2ee523a2206206994597C13D831ec7";
const watchW: WatchRef = { id: "aw_w", accountId: "acc_a", address: W };
const lookup = (address: string) => (address === W ? [watchW] : undefined);

const hitsOfTx = (tx: TransactionInput) => hitsOf(toIngestedBlock({ network: "eth", height: 1, hash: "0xb", transactions: [tx] }, "evm").transactions[0], lookup);

describe("event bodies", () => {
  const createdAt = "2026-11-21T19:08:00.000+00:00";

  it("writes a wallet event with the contract's keys in order, native amounts at the network's decimals", () => {
    const [hit] = hitsOfTx({ hash: "0xt", from: X, to: W, value: "1500000000000000000" });
    const body = walletEventBody({ id: "evt_1", hit, network: "eth", txHash: "0xt", blockHeight: 7, blockHash: "0xb", networkDecimals: 18, family: "evm", createdAt });
    expect(body).toBe(
      '{"id":"evt_1","type":"payment","direction":"in","watch_id":"aw_w","network":"eth","address":"0x1111111111111111111111111111111111111111",' +
        '"tx_hash":"0xt","block_height":7,"block_hash":"0xb","asset":null,"token_standard":null,"token_id":null,"amount":"1.5","amount_raw":"1500000000000000000",' +
        '"internal":false,"created_at":"2026-11-21T19:08:00.000+00:00","removed":false}',
    );
  });

  it("formats a token amount with the transfer's decimals, and in raw units when the feed sent none", () => {
    const [withDecimals] = hitsOfTx({ hash: "0xt", from: X, to: C, value: "0", transfers: [{ asset: USDT, from: X, to: W, value: "2500000", decimals: 6 }] });
    const [without] = hitsOfTx({ hash: "0xt", from: X, to: C, value: "0", transfers: [{ asset: USDT, from: X, to: W, value: "2500000" }] });
    const amount = (hit: typeof withDecimals) =>
      JSON.parse(walletEventBody({ id: "e", hit, network: "eth", txHash: "0xt", blockHeight: 1, blockHash: "0xb", networkDecimals: 18, family: "evm", createdAt })).amount;
    expect(amount(withDecimals)).toBe("2.5");
    expect(amount(without)).toBe("2500000");
  });

  it("names the token standard and id of an NFT, counts whole tokens, and marks native value moved inside a contract as internal", () => {
    const hits = hitsOfTx({
      hash: "0xt",
      from: X,
      to: C,
      value: "0",
      transfers: [
        { asset: USDT, from: X, to: W, value: "2500000", decimals: 6 },
        { asset: C, from: X, to: W, value: "1", token_standard: "erc721", token_id: "18446744073709551617" },
        { asset: C, from: X, to: W, value: "3", token_standard: "erc1155", token_id: "5" },
        { from: C, to: W, value: "250000000000000000", internal: true },
      ],
    });
    const fields = hits.map((hit) => {
      const b = JSON.parse(walletEventBody({ id: "e", hit, network: "eth", txHash: "0xt", blockHeight: 1, blockHash: "0xb", networkDecimals: 18, family: "evm", createdAt }));
      return [b.asset, b.token_standard, b.token_id, b.amount, b.amount_raw, b.internal];
    });
    expect(fields).toEqual([
      [USDT.toLowerCase(), "erc20", null, "2.5", "2500000", false],
      [C, "erc721", "18446744073709551617", "1", "1", false],
      [C, "erc1155", "5", "3", "3", false],
      [null, null, null, "0.25", "250000000000000000", true],
    ]);
  });

  it("names a tron token trc20, and a token of a family without standards null", () => {
    const [hit] = hitsOfTx({ hash: "0xt", from: X, to: C, value: "0", transfers: [{ asset: USDT, from: X, to: W, value: "1", decimals: 6 }] });
    const standard = (family: "tron" | "solana") =>
      JSON.parse(walletEventBody({ id: "e", hit, network: "x", txHash: "0xt", blockHeight: 1, blockHash: "0xb", networkDecimals: 6, family, createdAt })).token_standard;
    expect([standard("tron"), standard("solana")]).toEqual(["trc20", null]);
  });

  it("writes a block event with its transactions between tx_count and created_at", () => {
    expect(blockEventBody({ id: "evt_b", network: "eth", height: 9, hash: "0xb", transactions: ["0x1", "0x2"], createdAt })).toBe(
      '{"id":"evt_b","type":"block","network":"eth","block_height":9,"block_hash":"0xb","tx_count":2,"transactions":["0x1","0x2"],"created_at":"2026-11-21T19:08:00.000+00:00","removed":false}',
    );
  });
});
