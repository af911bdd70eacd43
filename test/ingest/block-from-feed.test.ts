import { describe, expect, it } from "bun:test";
import { parseConfig } from "../../src/config/load.ts";
import { blocksFromFeed, matchHash, movementsOf } from "../../src/ingest/block-from-feed.ts";

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

  it("reads NFT transfers with their standard and token id in whole tokens, and internal transfers as native value", () => {
    const movements = movementsOf(
      {
        hash: "0xt",
        from: X,
        to: C,
        value: "0",
        transfers: [
          { asset: USDT, from: X, to: W, value: "5", decimals: 6, token_standard: "erc20" },
          { asset: C, from: X, to: W, value: "1", token_standard: "erc721", token_id: "115792089237316195423570985008687907853269984665640564039457584007913129639935" },
          { asset: C, from: null, to: W, value: "40", decimals: 0, token_standard: "erc1155", token_id: "7" },
          { from: C, to: W, value: "900", internal: true },
        ],
      },
      "evm",
    );
    expect(movements).toEqual([
      { index: 1, asset: USDT.toLowerCase(), from: X, to: W, value: 5n, decimals: 6 },
      { index: 2, asset: C, from: X, to: W, value: 1n, decimals: 0, nft: { standard: "erc721", tokenId: 2n ** 256n - 1n } },
      { index: 3, asset: C, from: null, to: W, value: 40n, decimals: 0, nft: { standard: "erc1155", tokenId: 7n } },
      { index: 4, asset: null, from: C, to: W, value: 900n, decimals: null, internal: true },
    ]);
  });
});

describe("blocksFromFeed: NFT and internal transfers", () => {
  const parsed = parseConfig({}, "test");
  if (!parsed.ok) throw new Error(parsed.error);
  const { networks } = parsed.config;
  const refusal = (network: string, transfer: Record<string, unknown>) => {
    const out = blocksFromFeed({ network, height: 1, hash: "0xb", transactions: [{ hash: "0xt", from: X, to: C, value: "0", transfers: [transfer] }] }, networks);
    return out.ok ? null : out.error;
  };
  const at = "transactions[0].transfers[0].";

  it.each([
    ["an internal transfer of a token", "eth", { asset: USDT, from: C, to: W, value: "1", internal: true }, "internal moves the native coin: asset must be null or absent"],
    ["a token standard off evm", "tron", { asset: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", from: X, to: W, value: "1", token_standard: "erc20" }, "token_standard is for evm networks only"],
    ["an NFT without its contract", "eth", { from: X, to: W, value: "1", token_standard: "erc721", token_id: "1" }, "token_standard erc721 needs asset, the token's contract"],
    ["a token id on a fungible transfer", "eth", { asset: USDT, from: X, to: W, value: "1", token_id: "1" }, "token_id is only for token_standard erc721 or erc1155"],
    ["an NFT without its token id", "eth", { asset: C, from: X, to: W, value: "1", token_standard: "erc1155" }, "token_id is required for an erc1155 transfer"],
    ["an NFT with decimals", "eth", { asset: C, from: X, to: W, value: "1", decimals: 18, token_standard: "erc1155", token_id: "1" }, "decimals must be 0 or absent for an erc1155 transfer: it counts whole tokens"],
    ["an ERC-721 moving two tokens", "eth", { asset: C, from: X, to: W, value: "2", token_standard: "erc721", token_id: "1" }, 'value must be "1" for an erc721 transfer: it moves one token'],
    ["a token id that is no integer", "eth", { asset: C, from: X, to: W, value: "1", token_standard: "erc721", token_id: "0x1" }, "token_id is malformed"],
    ["an unknown standard", "eth", { asset: C, from: X, to: W, value: "1", token_standard: "erc777" }, "token_standard must be one of erc20, erc721, erc1155"],
  ])("refuses %s, naming the field", (_what, network, transfer, error) => {
    expect(refusal(network, transfer)).toBe(`${at}${error}`);
  });

  it("takes NFT and internal transfers on evm, and internal ones elsewhere", () => {
    expect(refusal("eth", { asset: C, from: X, to: W, value: "1", decimals: 0, token_standard: "erc721", token_id: "0" })).toBeNull();
    expect(refusal("tron", { from: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", to: "TJRabPrwbZy45sbavfcjinPJC18kjpRTv8", value: "1", internal: true })).toBeNull();
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
