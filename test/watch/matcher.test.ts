import { describe, expect, it } from "bun:test";
import type { TransactionInput } from "../../src/ingest/batch-schema.ts";
import {
  blockEventBody,
  hitsOf,
  matchAddress,
  movementsOf,
  toIngestedBlock,
  type WatchRef,
  walletDedupeKey,
  walletEventBody,
} from "../../src/watch/matcher.ts";

const W = "0x1111111111111111111111111111111111111111";
const X = "0x2222222222222222222222222222222222222222";
const C = "0x3333333333333333333333333333333333333333";
const USDT = "0xdAC17F958D2ee523a2206206994597C13D831ec7";
const watchW: WatchRef = { id: "aw_w", accountId: "acc_a", address: W };
const lookup = (address: string) => (address === W ? [watchW] : undefined);

const hitsOfTx = (tx: TransactionInput) => hitsOf(toIngestedBlock({ network: "eth", height: 1, hash: "0xb", transactions: [tx] }, "evm").transactions[0], lookup);
const summary = (tx: TransactionInput) => hitsOfTx(tx).map((h) => [h.type, h.direction, h.movement, h.value.toString()]);

describe("matchAddress", () => {
  it.each([
    ["evm", "0xAbCdEf0000000000000000000000000000000000", "0xabcdef0000000000000000000000000000000000"],
    ["btc", "BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"],
    ["btc", "tb1qexample", "tb1qexample"],
    ["btc", "1BoatSLRHtKNngkdXEeobR76b53LETtpy", "1BoatSLRHtKNngkdXEeobR76b53LETtpy"],
    ["tron", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"],
    ["solana", "So11111111111111111111111111111111111111112", "So11111111111111111111111111111111111111112"],
    ["generic", "Any Label", "Any Label"],
  ] as const)("puts a %s feed address %p in watch form %p", (family, input, expected) => {
    expect(matchAddress(family, input)).toBe(expected);
  });

  it("keeps null and absent addresses null", () => {
    expect(matchAddress("evm", null)).toBeNull();
    expect(matchAddress("evm", undefined)).toBeNull();
  });
});

describe("movementsOf", () => {
  it("numbers the native value 0 and each transfer by its position plus one, normalizing addresses", () => {
    const movements = movementsOf(
      {
        hash: "0xt",
        from: X.toUpperCase().replace("0X", "0x"),
        to: USDT,
        value: "7",
        transfers: [
          { asset: USDT, from: X, to: W, value: "2500000", decimals: 6 },
          { asset: USDT, from: W, to: null, value: "0" },
        ],
      },
      "evm",
    );
    expect(movements).toEqual([
      { index: 0, asset: null, from: X, to: USDT.toLowerCase(), value: 7n, decimals: null },
      { index: 1, asset: USDT.toLowerCase(), from: X, to: W, value: 2_500_000n, decimals: 6 },
      { index: 2, asset: USDT.toLowerCase(), from: W, to: null, value: 0n, decimals: null },
    ]);
  });

  it("leaves out a zero native value: a plain contract call moves nothing", () => {
    expect(movementsOf({ hash: "0xt", from: W, to: C, value: "0" }, "evm")).toEqual([]);
  });
});

describe("hitsOf", () => {
  it("gives a payment for value sent to W", () => {
    expect(summary({ hash: "0xt", from: X, to: W, value: "1000" })).toEqual([["payment", "in", 0, "1000"]]);
  });

  it("gives a payout for value sent from W", () => {
    expect(summary({ hash: "0xt", from: W, to: X, value: "1000" })).toEqual([["payout", "out", 0, "1000"]]);
  });

  it("gives both an in and an out hit for a self-transfer", () => {
    expect(summary({ hash: "0xt", from: W, to: W, value: "5" })).toEqual([
      ["payment", "in", 0, "5"],
      ["payout", "out", 0, "5"],
    ]);
  });

  it("gives one other hit, out, when W sends a zero-value call with no movement", () => {
    expect(summary({ hash: "0xt", from: W, to: C, value: "0" })).toEqual([["other", "out", 0, "0"]]);
  });

  it("gives one other hit, in, when a transaction names W as recipient with no movement", () => {
    expect(summary({ hash: "0xt", from: X, to: W, value: "0" })).toEqual([["other", "in", 0, "0"]]);
  });

  it("gives one other hit for a zero-value self-call", () => {
    expect(summary({ hash: "0xt", from: W, to: W, value: "0" })).toEqual([["other", "out", 0, "0"]]);
  });

  it("gives an other hit for a zero-value transfer touching W", () => {
    expect(summary({ hash: "0xt", from: X, to: C, value: "0", transfers: [{ asset: USDT, from: W, to: X, value: "0" }] })).toEqual([
      ["other", "out", 1, "0"],
    ]);
  });

  it("matches a token transfer by its own from/to and skips the no-movement hit when a movement touched W", () => {
    const tx = { hash: "0xt", from: W, to: USDT, value: "0", transfers: [{ asset: USDT, from: X, to: W, value: "2500000", decimals: 6 }] };
    expect(summary(tx)).toEqual([["payment", "in", 1, "2500000"]]);
    expect(hitsOfTx(tx)[0]).toMatchObject({ asset: USDT.toLowerCase(), decimals: 6 });
  });

  it("gives the no-movement hit when W sent a transaction whose transfers moved other addresses' funds", () => {
    expect(summary({ hash: "0xt", from: W, to: C, value: "0", transfers: [{ asset: USDT, from: X, to: C, value: "9" }] })).toEqual([
      ["other", "out", 0, "0"],
    ]);
  });

  it("gives one hit per watch when several accounts watch the address", () => {
    const other: WatchRef = { id: "aw_other", accountId: "acc_b", address: W };
    const block = toIngestedBlock({ network: "eth", height: 1, hash: "0xb", transactions: [{ hash: "0xt", from: X, to: W, value: "1" }] }, "evm");
    const hits = hitsOf(block.transactions[0], (a) => (a === W ? [watchW, other] : undefined));
    expect(hits.map((h) => h.watch.id)).toEqual(["aw_w", "aw_other"]);
  });

  it("matches a mixed-case evm feed address against the lower-case watch", () => {
    expect(summary({ hash: "0xt", from: X, to: "0x1111111111111111111111111111111111111111".toUpperCase().replace("0X", "0x"), value: "1" })).toEqual([
      ["payment", "in", 0, "1"],
    ]);
  });

  it("never matches null or unwatched addresses", () => {
    expect(summary({ hash: "0xt", from: X, to: null, value: "1" })).toEqual([]);
  });

  it("keys each event by watch, transaction, movement and direction", () => {
    const [inHit, outHit] = hitsOfTx({ hash: "0xt", from: W, to: W, value: "5" });
    expect(walletDedupeKey(inHit, "0xt")).toBe("aw_w:0xt:0:in");
    expect(walletDedupeKey(outHit, "0xt")).toBe("aw_w:0xt:0:out");
  });
});

describe("event bodies", () => {
  const createdAt = "2026-11-21T19:08:00.000+00:00";

  it("writes a wallet event with the contract's keys in order, native amounts at the network's decimals", () => {
    const [hit] = hitsOfTx({ hash: "0xt", from: X, to: W, value: "1500000000000000000" });
    const body = walletEventBody({ id: "evt_1", hit, network: "eth", txHash: "0xt", blockHeight: 7, blockHash: "0xb", networkDecimals: 18, createdAt });
    expect(body).toBe(
      '{"id":"evt_1","type":"payment","direction":"in","watch_id":"aw_w","network":"eth","address":"0x1111111111111111111111111111111111111111",' +
        '"tx_hash":"0xt","block_height":7,"block_hash":"0xb","asset":null,"amount":"1.5","amount_raw":"1500000000000000000",' +
        '"created_at":"2026-11-21T19:08:00.000+00:00"}',
    );
  });

  it("formats a token amount with the transfer's decimals, and in raw units when the feed sent none", () => {
    const [withDecimals] = hitsOfTx({ hash: "0xt", from: X, to: C, value: "0", transfers: [{ asset: USDT, from: X, to: W, value: "2500000", decimals: 6 }] });
    const [without] = hitsOfTx({ hash: "0xt", from: X, to: C, value: "0", transfers: [{ asset: USDT, from: X, to: W, value: "2500000" }] });
    const amount = (hit: typeof withDecimals) =>
      JSON.parse(walletEventBody({ id: "e", hit, network: "eth", txHash: "0xt", blockHeight: 1, blockHash: "0xb", networkDecimals: 18, createdAt })).amount;
    expect(amount(withDecimals)).toBe("2.5");
    expect(amount(without)).toBe("2500000");
  });

  it("writes a block event with its transactions between tx_count and created_at", () => {
    expect(blockEventBody({ id: "evt_b", network: "eth", height: 9, hash: "0xb", transactions: ["0x1", "0x2"], createdAt })).toBe(
      '{"id":"evt_b","type":"block","network":"eth","block_height":9,"block_hash":"0xb","tx_count":2,"transactions":["0x1","0x2"],"created_at":"2026-11-21T19:08:00.000+00:00"}',
    );
  });
});
