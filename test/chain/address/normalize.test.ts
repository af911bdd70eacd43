import { describe, expect, it } from "bun:test";
import { sha256 } from "@noble/hashes/sha2.js";
import { hexToBytes } from "@noble/hashes/utils.js";
import { bech32, bech32m, createBase58check } from "@scure/base";
import { isBech32String } from "../../../src/chain/address/btc.ts";
import { type AddressRules, invalidAddress, matchAddress, normalizeAddress, normalizeNetworkAddress } from "../../../src/chain/address/normalize.ts";
import { FAMILIES } from "../../../src/chain/family.ts";
import type { Family } from "../../../src/config/schema.ts";

// Builds a checksum-correct base58check string, so a rejection can only come from version or length.
const base58checkOf = (version: number, body: Uint8Array): string => createBase58check(sha256).encode(Uint8Array.from([version, ...body]));
const base58checkWithVersion = (version: number, bodyLength = 20): string => base58checkOf(version, new Uint8Array(bodyLength).fill(0x11));

describe("evm", () => {
  it.each([
    // EIP-55 reference vectors.
    ["0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"],
    ["0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359", "0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359"],
    ["0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB", "0xdbf03b407c01e7cd3cbea99509d93f8dddc8c6fb"],
    ["0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb", "0xd1220a0cf47c7b9be7a2e6ba89f429762e7b9adb"],
    // Single-case input carries no checksum and is accepted as is.
    ["0x52908400098527886E0F7030069857D2E4169EE7", "0x52908400098527886e0f7030069857d2e4169ee7"],
    ["0xde709f2102306220921060314715629080e2fb77", "0xde709f2102306220921060314715629080e2fb77"],
    ["0x0000000000000000000000000000000000000000", "0x0000000000000000000000000000000000000000"],
    ["  0x27b1fdb04752bbc536007a920d24acb045561c26\n", "0x27b1fdb04752bbc536007a920d24acb045561c26"],
  ])("accepts %p as %p", (input, normalized) => {
    expect(normalizeAddress("evm", input)).toBe(normalized);
  });

  it.each([
    ["a mixed-case address with one letter's case flipped", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD"],
    ["a mixed-case address with one hex digit changed", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAee"],
    ["the upper-case 0X prefix", "0X52908400098527886E0F7030069857D2E4169EE7"],
    ["a missing prefix", "52908400098527886e0f7030069857d2e4169ee7"],
    ["39 hex digits", "0x52908400098527886e0f7030069857d2e4169ee"],
    ["41 hex digits", "0x52908400098527886e0f7030069857d2e4169ee77"],
    ["a non-hex character", "0x52908400098527886e0f7030069857d2e4169eeg"],
    ["an inner space", "0x5290840009852788 6e0f7030069857d2e4169ee7"],
    ["an empty string", ""],
  ])("rejects %s", (_case, input) => {
    expect(normalizeAddress("evm", input)).toBeNull();
  });
});

/** Bitcoin mainnet: a btc network whose table names no address keys (the default `btc`). */
const MAINNET: AddressRules = { family: "btc" };
const TESTNET: AddressRules = { family: "btc", bech32_hrp: "tb", p2pkh_version: 0x6f, p2sh_version: 0xc4 };
const LITECOIN_REGTEST: AddressRules = { family: "btc", bech32_hrp: "rltc", p2pkh_version: 111, p2sh_version: 58 };

// BIP173's P2WPKH vector is over this hash160 (of the generator point's compressed key).
const HASH160 = hexToBytes("751e76e8199196d454941c45d1b3a323f1433bd6");
const bytes = (length: number, fill = 0x22) => new Uint8Array(length).fill(fill);

/** Segwit address of `program` under `hrp`, checksummed with `codec` whatever BIP350 would pick. */
const segwit = (codec: typeof bech32, hrp: string, version: number, program: Uint8Array) =>
  codec.encode(hrp, [version, ...codec.toWords(program)], false);

describe("btc address vectors built here", () => {
  it("reproduce BIP173's P2WPKH vector and the P2PKH address of the same hash", () => {
    expect(segwit(bech32, "bc", 0, HASH160)).toBe("bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4");
    expect(base58checkOf(0x00, HASH160)).toBe("1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH");
  });
});

describe("btc on Bitcoin mainnet", () => {
  it.each([
    // Base58check keeps its case: it is part of the encoding.
    ["1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa", "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa"],
    ["1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2", "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2"],
    ["3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy", "3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy"],
    // BIP173/BIP350 valid vectors; bech32 is normalized to lower case.
    ["bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"],
    ["BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"],
    [
      "bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3",
      "bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3",
    ],
    [
      "bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y",
      "bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y",
    ],
    ["BC1SW50QGDZ25J", "bc1sw50qgdz25j"],
    ["bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs", "bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs"],
    [
      "bc1p5d7rjq7g6rdk2yhzks9smlaqtedr4dekq08ge8ztwac72sfr9rusxg3297",
      "bc1p5d7rjq7g6rdk2yhzks9smlaqtedr4dekq08ge8ztwac72sfr9rusxg3297",
    ],
    [
      "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0",
      "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0",
    ],
    [
      "BC1P0XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQZK5JJ0",
      "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0",
    ],
    ["\t1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa ", "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa"],
  ])("accepts %p as %p", (input, normalized) => {
    expect(normalizeNetworkAddress(MAINNET, input)).toBe(normalized);
    // The family alone means Bitcoin mainnet.
    expect(normalizeAddress("btc", input)).toBe(normalized);
  });

  it.each([
    ["the genesis address with its last character changed", "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb"],
    ["the genesis address in lower case", "1a1zp1ep5qgefi2dmptftl5slmv7divfna"],
    ["a testnet P2PKH address (version 111)", "mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn"],
    ["a testnet P2SH address (version 196)", "2MzQwSSnBHWHqSAqtTVQ6v47XtaisrJa1Vc"],
    ["a testnet P2WSH address (prefix tb)", "tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7"],
    ["a Litecoin regtest P2WPKH address (prefix rltc)", segwit(bech32, "rltc", 0, HASH160)],
    ["a base58check payload with the Litecoin version 0x30", base58checkWithVersion(0x30)],
    ["a checksum-valid P2PKH payload of 20 bytes", base58checkWithVersion(0x00, 19)],
    ["a checksum-valid P2PKH payload of 22 bytes", base58checkWithVersion(0x00, 21)],
    ["a Tron address (version 0x41)", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"],
    ["a bech32 address with one character changed", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5"],
    ["an unknown hrp", "tc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq5zuyut"],
    ["v1 with a bech32 checksum", "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd"],
    ["v16 with a bech32 checksum", "BC1S0XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ54WELL"],
    ["v0 with a bech32m checksum", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh"],
    ["a witness version above 16", "BC130XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ7ZWS8R"],
    ["a 1-byte program", "bc1pw5dgrnzv"],
    [
      "a 41-byte program",
      "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v8n0nx0muaewav253zgeav",
    ],
    ["a 16-byte v0 program", "BC1QR508D6QEJXTDG4Y5R3ZARVARYV98GJ9P"],
    ["mixed case", "bc1qW508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"],
    ["more than 4 bits of zero padding", "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v07qwwzcrf"],
    ["an empty data section", "bc1gmk9yu"],
    ["an EVM address", "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"],
  ])("refuses %s", (_case, input) => {
    expect(normalizeNetworkAddress(MAINNET, input)).toBeNull();
    expect(normalizeAddress("btc", input)).toBeNull();
  });
});

describe("btc on testnet (prefix tb, versions 111 and 196)", () => {
  it.each([
    ["mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn", "mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn"],
    ["2MzQwSSnBHWHqSAqtTVQ6v47XtaisrJa1Vc", "2MzQwSSnBHWHqSAqtTVQ6v47XtaisrJa1Vc"],
    [
      "tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7",
      "tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7",
    ],
    ["TB1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KXPJZSX", "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx"],
  ])("accepts %p as %p", (input, normalized) => {
    expect(normalizeNetworkAddress(TESTNET, input)).toBe(normalized);
  });

  it.each([
    ["a mainnet P2PKH address", "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa"],
    ["a mainnet P2SH address", "3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy"],
    ["a mainnet P2WPKH address", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"],
    ["mixed case", "tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq47Zagq"],
    ["non-zero padding", "tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vpggkg4j"],
  ])("refuses %s", (_case, input) => {
    expect(normalizeNetworkAddress(TESTNET, input)).toBeNull();
  });
});

describe("btc on Litecoin regtest (prefix rltc, versions 111 and 58)", () => {
  const p2wpkh = segwit(bech32, "rltc", 0, HASH160);
  it.each([
    ["P2PKH", base58checkOf(111, HASH160), base58checkOf(111, HASH160)],
    ["P2SH", base58checkOf(58, HASH160), base58checkOf(58, HASH160)],
    ["P2WPKH", p2wpkh, p2wpkh],
    ["P2WPKH in upper case", p2wpkh.toUpperCase(), p2wpkh],
    ["P2WSH", segwit(bech32, "rltc", 0, bytes(32)), segwit(bech32, "rltc", 0, bytes(32))],
    ["P2TR", segwit(bech32m, "rltc", 1, bytes(32)), segwit(bech32m, "rltc", 1, bytes(32))],
    ["a v16 program of 40 bytes", segwit(bech32m, "rltc", 16, bytes(40)), segwit(bech32m, "rltc", 16, bytes(40))],
  ])("accepts %s (%p)", (_case, input, normalized) => {
    expect(normalizeNetworkAddress(LITECOIN_REGTEST, input)).toBe(normalized);
  });

  it.each([
    ["Bitcoin mainnet P2WPKH", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"],
    ["Bitcoin mainnet P2TR", "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0"],
    ["Bitcoin mainnet P2PKH (version 0)", base58checkOf(0x00, HASH160)],
    ["Bitcoin mainnet P2SH (version 5)", base58checkOf(0x05, HASH160)],
    ["Litecoin mainnet P2PKH (version 48)", base58checkOf(48, HASH160)],
    ["Litecoin mainnet P2WPKH (prefix ltc)", segwit(bech32, "ltc", 0, HASH160)],
    ["a P2PKH payload of 21 bytes", base58checkOf(111, bytes(21))],
    ["v0 with a bech32m checksum", segwit(bech32m, "rltc", 0, HASH160)],
    ["v1 with a bech32 checksum", segwit(bech32, "rltc", 1, bytes(32))],
    ["a v0 program of 21 bytes", segwit(bech32, "rltc", 0, bytes(21))],
    ["a v0 program of 31 bytes", segwit(bech32, "rltc", 0, bytes(31))],
    ["a v0 program of 33 bytes", segwit(bech32, "rltc", 0, bytes(33))],
    ["a v1 program of 1 byte", segwit(bech32m, "rltc", 1, bytes(1))],
    ["a v1 program of 41 bytes", segwit(bech32m, "rltc", 1, bytes(41))],
    ["a witness version of 17", segwit(bech32m, "rltc", 17, bytes(32))],
  ])("refuses %s", (_case, input) => {
    expect(normalizeNetworkAddress(LITECOIN_REGTEST, input)).toBeNull();
  });

  it("never throws on hostile input", () => {
    const hostile: unknown[] = ["\u0000", "rltc1", "RLTC1", "\uD800", "💥".repeat(40), undefined, null, 42];
    for (const input of hostile) expect(normalizeNetworkAddress(LITECOIN_REGTEST, input as string)).toBeNull();
  });
});

describe("normalizeNetworkAddress on other families", () => {
  it.each([
    [{ family: "evm" }, "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"],
    [{ family: "tron" }, "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"],
    [{ family: "generic" }, " label ", "label"],
    [{ family: "evm" }, "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa", null],
  ] as [AddressRules, string, string | null][])("%o: %p → %p, as the family form", (network, input, normalized) => {
    expect(normalizeNetworkAddress(network, input)).toBe(normalized);
  });
});

describe("the refusal message", () => {
  it.each([
    ["btc", MAINNET, "Invalid address for network btc: expected P2PKH (version 0), P2SH (version 5), or bech32/bech32m with prefix bc1"],
    [
      "ltc-regtest",
      LITECOIN_REGTEST,
      "Invalid address for network ltc-regtest: expected P2PKH (version 111), P2SH (version 58), or bech32/bech32m with prefix rltc1",
    ],
    ["eth", { family: "evm" }, "Invalid address for network eth"],
    ["tron", { family: "tron" }, "Invalid address for network tron"],
    ["sol", { family: "solana" }, "Invalid address for network sol"],
    ["labels", { family: "generic" }, "Invalid address for network labels"],
  ] as [string, AddressRules, string][])("on %s is %p", (slug, network, message) => {
    expect(invalidAddress(slug, network)).toBe(message);
  });

  it.each([
    ["one letter's case flipped", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD", `Invalid address for network eth: its mixed-case letters do not match its EIP-55 checksum; check it for a mistyped character`],
    ["a checksummed address with a digit changed", " 0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAee ", `Invalid address for network eth: its mixed-case letters do not match its EIP-55 checksum; check it for a mistyped character`],
    ["39 hex digits in mixed case", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAe", "Invalid address for network eth"],
    ["a bitcoin address", "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa", "Invalid address for network eth"],
  ])("on an evm network, for %s, is %p", (_case, input, message) => {
    expect(normalizeNetworkAddress({ family: "evm" }, input)).toBeNull();
    expect(invalidAddress("eth", { family: "evm" }, input)).toBe(message);
  });
});

describe("tron", () => {
  it.each([
    ["TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"],
    // 0x41 followed by 20 zero bytes: the Tron zero address.
    ["T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb", "T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb"],
    [" TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t ", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"],
  ])("accepts %p as %p", (input, normalized) => {
    expect(normalizeAddress("tron", input)).toBe(normalized);
  });

  it.each([
    ["the USDT contract with its last character changed", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u"],
    ["a Bitcoin address (version 0x00)", "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa"],
    ["a checksum-valid payload with version 0x42", base58checkWithVersion(0x42)],
    ["a checksum-valid 0x41 payload of 22 bytes", base58checkWithVersion(0x41, 21)],
    ["the hex form of an account", "41a614f803b6fd780986a42c78ec9c7f77e6ded13c"],
    ["an EVM address", "0xa614f803b6fd780986a42c78ec9c7f77e6ded13c"],
  ])("rejects %s", (_case, input) => {
    expect(normalizeAddress("tron", input)).toBeNull();
  });
});

describe("solana", () => {
  it.each([
    ["11111111111111111111111111111111", "11111111111111111111111111111111"],
    ["TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA", "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"],
    ["So11111111111111111111111111111111111111112", "So11111111111111111111111111111111111111112"],
    // Base58 has no checksum, so a one-character typo is still a well-formed 32-byte key.
    ["TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DB", "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DB"],
    ["\n11111111111111111111111111111111\n", "11111111111111111111111111111111"],
  ])("accepts %p as %p", (input, normalized) => {
    expect(normalizeAddress("solana", input)).toBe(normalized);
  });

  it.each([
    ["31 characters (31 bytes)", "1".repeat(31)],
    ["33 characters (33 bytes)", "1".repeat(33)],
    ["44 characters that decode to more than 32 bytes", "z".repeat(44)],
    ["45 characters", "z".repeat(45)],
    ["a character outside the base58 alphabet", "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ50A"],
    ["an EVM address", "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"],
  ])("rejects %s", (_case, input) => {
    expect(normalizeAddress("solana", input)).toBeNull();
  });
});

describe("generic", () => {
  it.each([
    ["addr_test1vz", "addr_test1vz"],
    ["  padded label \t", "padded label"],
    ["x".repeat(128), "x".repeat(128)],
    [` ${"x".repeat(128)} `, "x".repeat(128)],
  ])("accepts %p as %p", (input, normalized) => {
    expect(normalizeAddress("generic", input)).toBe(normalized);
  });

  it.each([
    ["an empty string", ""],
    ["only whitespace", " \t\n "],
    ["129 characters", "x".repeat(129)],
  ])("rejects %s", (_case, input) => {
    expect(normalizeAddress("generic", input)).toBeNull();
  });
});

describe("every family", () => {
  it("lists each family exactly once", () => {
    expect([...FAMILIES].sort()).toEqual(["btc", "evm", "generic", "solana", "tron"]);
  });

  it.each(FAMILIES.map((family) => [family]))("rejects a 129-character %s input", (family) => {
    expect(normalizeAddress(family, "1".repeat(129))).toBeNull();
  });

  it.each(FAMILIES.map((family) => [family]))("never throws on hostile %s input", (family) => {
    const hostile: unknown[] = ["\u0000", "1", "bc1", "0x", "\uD800", "💥".repeat(40), undefined, null, 42];
    for (const input of hostile) {
      expect(() => normalizeAddress(family, input as string)).not.toThrow();
    }
  });

  it("rejects an unknown family instead of throwing", () => {
    expect(normalizeAddress("cosmos" as Family, "cosmos1abc")).toBeNull();
    expect(normalizeAddress("toString" as Family, "x")).toBeNull();
  });
});

describe("matchAddress", () => {
  it.each([
    ["evm", "0xAbCdEf0000000000000000000000000000000000", "0xabcdef0000000000000000000000000000000000"],
    ["btc", "BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"],
    ["btc", "tb1qexample", "tb1qexample"],
    ["btc", "1BoatSLRHtKNngkdXEeobR76b53LETtpy", "1BoatSLRHtKNngkdXEeobR76b53LETtpy"],
    // Any prefix: the feed's network may be Litecoin or a regtest chain.
    ["btc", "TB1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KXPJZSX", "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx"],
    ["btc", segwit(bech32, "rltc", 0, HASH160).toUpperCase(), segwit(bech32, "rltc", 0, HASH160)],
    ["btc", segwit(bech32m, "ltc", 1, bytes(32)).toUpperCase(), segwit(bech32m, "ltc", 1, bytes(32))],
    // No validation: a lower-case bech32 string with a bad checksum stays as given.
    ["btc", "rltc1qexample", "rltc1qexample"],
    ["btc", "Rltc1qW508d6qejxtdg4y5r3zarvary0c5xw7k693xs3", "rltc1qw508d6qejxtdg4y5r3zarvary0c5xw7k693xs3"],
    // Strings of a bech32 shape without its checksum keep their case: base58 addresses can look so.
    ["btc", "ABC1DEFGHJ", "ABC1DEFGHJ"],
    ["btc", "3J98t1WpEZ73CNmQvecrnyWrnqRhWNLy", "3J98t1WpEZ73CNmQvecrnyWrnqRhWNLy"],
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

describe("isBech32String", () => {
  // hrp, the last "1", then 6+ characters of the bech32 alphabet, in either case.
  const bech32Shape = /^[a-z0-9]{1,83}1[02-9ac-hj-np-z]{6,}$/i;
  // What it answered before its checksum was checked ahead of the decoders: the decoders alone.
  const byDecoders = (address: string) => {
    if (!bech32Shape.test(address)) return false;
    const lower = address.toLowerCase();
    return Boolean(bech32.decodeUnsafe(lower) ?? bech32m.decodeUnsafe(lower));
  };
  // A fixed sequence (xorshift), so a failure names a case that comes back.
  let seed = 0x2545f491;
  const next = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 2 ** 32;
  };
  const pick = (chars: string) => chars[Math.floor(next() * chars.length)];
  const spell = (s: string) => {
    const r = next();
    if (r < 0.4) return s;
    if (r < 0.7) return s.toUpperCase();
    return [...s].map((c) => (next() < 0.5 ? c.toUpperCase() : c)).join("");
  };
  const cases: string[] = [];
  for (let n = 0; n < 2000; n++) {
    const prefix = Array.from({ length: 1 + Math.floor(next() * 8) }, () => pick("abcdefghijklmnopqrstuvwxyz0123456789")).join("");
    const words = Array.from({ length: 1 + Math.floor(next() * 60) }, () => Math.floor(next() * 32));
    const valid = (next() < 0.5 ? bech32 : bech32m).encode(prefix, words, 200);
    cases.push(spell(valid));
    // One character changed: the checksum catches it.
    const at = valid.lastIndexOf("1") + 1 + Math.floor(next() * (valid.length - valid.lastIndexOf("1") - 1));
    cases.push(spell(valid.slice(0, at) + pick("qpzry9x8gf2tvdw0s3jn54khce6mua7l") + valid.slice(at + 1)));
    // Base58 strings, many of them of the bech32 shape.
    cases.push(`${pick("123mnQ")}${Array.from({ length: 25 + Math.floor(next() * 9) }, () => pick("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz")).join("")}`);
  }
  cases.push(segwit(bech32, "rltc", 0, HASH160), segwit(bech32m, "ltc", 1, bytes(32)).toUpperCase(), "BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4", "ABC1DEFGHJ", "a1qqqqqq");

  it("answers as the decoders alone do, for valid, altered and base58 strings in every case", () => {
    const differ = cases.filter((c) => isBech32String(c) !== byDecoders(c));
    expect(differ).toEqual([]);
    // The cases hold both answers: strings the decoders accept, and strings of the bech32 shape
    // they refuse, which the checksum had to tell apart.
    expect(cases.filter(byDecoders).length).toBeGreaterThan(1500);
    expect(cases.filter((c) => !byDecoders(c) && bech32Shape.test(c)).length).toBeGreaterThan(1500);
  });
});
