import { describe, expect, it } from "bun:test";
import { matchHash, movementsOf } from "../../src/ingest/block-from-feed.ts";

const W = "0x1111111111111111111111111111111111111111";
const X = "0x2222222222222222222222222222222222222222";
const C = "0x3333333333333333333333333333333333333333";
const USDT = "0xdAC17F958D2ee523a2206206994597C13D831ec7";

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

describe("matchHash: one stored spelling of a hash", () => {
  it.each([
    ["evm", "0xABCdef0123", "0xabcdef0123"],
    ["evm", "0XABCDEF", "0xabcdef"],
    ["tron", "00000000ABCDEF", "00000000abcdef"],
    ["btc", "00000000000000000007A1B2", "00000000000000000007a1b2"],
    // Not hex: kept as sent (a free-text hash of a test feed, base58 where case is meaning).
    ["evm", "0xb-not-hex", "0xb-not-hex"],
    ["solana", "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW", "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW"],
    ["generic", "ABC", "ABC"],
  ] as const)("%s %s → %s", (family, hash, stored) => {
    expect(matchHash(family, hash)).toBe(stored);
  });
});
