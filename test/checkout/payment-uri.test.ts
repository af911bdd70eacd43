import { describe, expect, test } from "bun:test";
import { formatEther, formatUnits, parseUnits } from "viem";
import { parseConfig } from "../../src/config/load.ts";
import type { NetworkConfig } from "../../src/config/schema.ts";
import { paymentUri } from "../../src/checkout/payment-uri.ts";

// Payment URIs exactly as docs/checkout.md gives them, and read back: neither viem nor @scure has
// an EIP-681 or BIP-21 parser, so each URI is taken apart by the WHATWG URL parser and its amount
// read by viem's unit functions (parseUnits / formatUnits), which must give the order's amount.

function networks(extra: Record<string, unknown> = {}): Record<string, NetworkConfig> {
  const loaded = parseConfig({ networks: extra }, "test");
  if (!loaded.ok) throw new Error(loaded.error);
  return loaded.config.networks;
}
const N = networks({
  ltc: { family: "btc", decimals: 8, bech32_hrp: "rltc", p2pkh_version: 111, p2sh_version: 58, uri_scheme: "litecoin" },
  eth1: { family: "evm", decimals: 18, chain_id: 1 },
  generic: { family: "generic", decimals: 2 },
});
const EVM = "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed";
const USDT = "0xdac17f958d2ee523a2206206994597c13d831ec7";
const BTC = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq";

describe("payment URIs", () => {
  test.each([
    ["btc, BIP-21 with the default scheme", N.btc, { address: BTC, asset: null, decimals: 8, amountRaw: 150_000_000n }, `bitcoin:${BTC}?amount=1.5`],
    ["btc, one satoshi: a decimal, never 1e-8", N.btc, { address: BTC, asset: null, decimals: 8, amountRaw: 1n }, `bitcoin:${BTC}?amount=0.00000001`],
    ["btc, whole coins without a dot", N.btc, { address: BTC, asset: null, decimals: 8, amountRaw: 2_100_000_000_000_000n }, `bitcoin:${BTC}?amount=21000000`],
    ["btc family, the network's uri_scheme", N.ltc, { address: "rltc1qxyz", asset: null, decimals: 8, amountRaw: 30_000_000n }, "litecoin:rltc1qxyz?amount=0.3"],
    ["btc family, a token: the address alone", N.btc, { address: BTC, asset: "RUNE", decimals: 0, amountRaw: 5n }, BTC],
    ["evm native, chain id given", N.eth1, { address: EVM, asset: null, decimals: 18, amountRaw: 1_500_000_000_000_000_000n }, `ethereum:${EVM}@1?value=1500000000000000000`],
    ["evm native, no chain id: @ left out", N.eth, { address: EVM, asset: null, decimals: 18, amountRaw: 10n ** 30n }, `ethereum:${EVM}?value=1000000000000000000000000000000`],
    ["evm token, chain id given", N.eth1, { address: EVM, asset: USDT, decimals: 6, amountRaw: 25_000_000n }, `ethereum:${USDT}@1/transfer?address=${EVM}&uint256=25000000`],
    ["evm token, no chain id", N.polygon, { address: EVM, asset: USDT, decimals: 6, amountRaw: 1n }, `ethereum:${USDT}/transfer?address=${EVM}&uint256=1`],
    ["tron native: the address", N.tron, { address: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", asset: null, decimals: 6, amountRaw: 5n }, "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"],
    ["tron token: the address", N.tron, { address: "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL", asset: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", decimals: 6, amountRaw: 5n }, "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL"],
    ["solana native: Solana Pay", N.sol, { address: "9Wz", asset: null, decimals: 9, amountRaw: 1n }, "solana:9Wz?amount=0.000000001"],
    ["solana token: Solana Pay with spl-token", N.sol, { address: "9Wz", asset: "EPj", decimals: 6, amountRaw: 1_250_000n }, "solana:9Wz?amount=1.25&spl-token=EPj"],
    ["generic: the address", N.generic, { address: "acct-42", asset: null, decimals: 2, amountRaw: 100n }, "acct-42"],
  ] as const)("%s", (_name, net, request, expected) => {
    expect(paymentUri(net, request)).toBe(expected);
  });

  test("an amount is plain decimal digits: never an exponent, never a float's rounding", () => {
    const cases: [NetworkConfig, number, bigint, string][] = [
      [N.btc, 8, 1n, "0.00000001"],
      [N.btc, 8, 7n, "0.00000007"],
      [N.btc, 8, 10n ** 18n - 1n, "9999999999.99999999"],
      [N.eth1, 18, 10n ** 18n, "1000000000000000000"],
      [N.eth1, 18, 123_456_789_012_345_678_901_234_567_890n, "123456789012345678901234567890"],
    ];
    for (const [net, decimals, raw, shown] of cases) {
      const uri = paymentUri(net, { address: EVM, asset: null, decimals, amountRaw: raw });
      expect(/(?:amount|value)=([^&]*)$/.exec(uri)?.[1]).toBe(shown);
    }
  });
});

describe("wallet parsers read the order's amount", () => {
  test("BIP-21: the amount parameter is the order's amount in coins (viem parseUnits, 8 decimals)", () => {
    for (const raw of [1n, 150_000_000n, 2_100_000_000_000_000n, 123_456_789n]) {
      const uri = new URL(paymentUri(N.btc, { address: BTC, asset: null, decimals: 8, amountRaw: raw }));
      expect([uri.protocol, uri.pathname]).toEqual(["bitcoin:", BTC]);
      expect(parseUnits(uri.searchParams.get("amount") as string, 8)).toBe(raw);
    }
  });

  test("EIP-681 native: value is the wei amount (viem formatEther gives the order's ETH)", () => {
    const uri = new URL(paymentUri(N.eth1, { address: EVM, asset: null, decimals: 18, amountRaw: 1_500_000_000_000_000_001n }));
    expect([uri.protocol, uri.pathname]).toEqual(["ethereum:", `${EVM}@1`]);
    expect(formatEther(BigInt(uri.searchParams.get("value") as string))).toBe("1.500000000000000001");
  });

  test("EIP-681 token transfer: the function is transfer, address the recipient, uint256 the amount (viem formatUnits)", () => {
    const uri = new URL(paymentUri(N.eth1, { address: EVM, asset: USDT, decimals: 6, amountRaw: 25_000_001n }));
    expect([uri.protocol, uri.pathname]).toEqual(["ethereum:", `${USDT}@1/transfer`]);
    expect(uri.searchParams.get("address")).toBe(EVM);
    expect(formatUnits(BigInt(uri.searchParams.get("uint256") as string), 6)).toBe("25.000001");
  });
});
