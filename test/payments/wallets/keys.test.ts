import { describe, expect, it } from "bun:test";
import { sha256 } from "@noble/hashes/sha2.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { createBase58check, hex } from "@scure/base";
import { mnemonicToAccount } from "viem/accounts";
import type { Family } from "../../../src/config/schema.ts";
import { descriptorChecksum, verifyDescriptorChecksum } from "../../../src/payments/wallets/descriptor-checksum.ts";
import { addressDeriver } from "../../../src/payments/wallets/derive-address.ts";
import { holdsPrivateKey } from "../../../src/payments/wallets/extended-key.ts";
import { gapNoticeDue } from "../../../src/payments/wallets/gap.ts";
import { PRIVATE_KEY_REFUSAL, parseWalletKey, type WalletKey } from "../../../src/payments/wallets/wallet-key.ts";
import { accountXpub, BIP380, BIP49, BIP84, BIP86, neutered, TEST_MNEMONIC, TRON_RECEIVE, viemAccountAt, viemKeyAt } from "./vectors.ts";

// The pure cores of payment wallets (docs/payments.md): the descriptor checksum, reading keys and
// descriptors, and deriving addresses, checked against published vectors and an independent
// derivation (viem). Parity with Bitcoin Core's deriveaddresses is checked on a real node in
// litecoind.test.ts.

const TPUB = { public: 0x043587cf, private: 0x04358394 };
const ZPUB = { public: 0x04b24746, private: 0x04b2430c };
const BITCOIN = { family: "btc" as const };
const TESTNET = { family: "btc" as const, bech32_hrp: "tb", p2pkh_version: 111, p2sh_version: 196 };

function parsed(family: Family, text: string): WalletKey {
  const p = parseWalletKey(family, text);
  if (!p.ok) throw new Error(`refused ${text}: ${p.error}`);
  return p.key;
}

const refusal = (family: Family, text: string) => {
  const p = parseWalletKey(family, text);
  return p.ok ? null : p.error;
};

const withChecksum = (d: string) => `${d}#${descriptorChecksum(d)}`;

describe("the BIP 380 descriptor checksum", () => {
  it("computes the BIP's valid checksum", () => {
    expect(descriptorChecksum("raw(deadbeef)")).toBe("89f8spxm");
    expect(verifyDescriptorChecksum("raw(deadbeef)#89f8spxm")).toEqual({ ok: true, descriptor: "raw(deadbeef)", checked: true });
  });

  it("passes a descriptor without one, unchecked", () => {
    expect(verifyDescriptorChecksum("raw(deadbeef)")).toEqual({ ok: true, descriptor: "raw(deadbeef)", checked: false });
  });

  it.each([
    ["a missing checksum", "raw(deadbeef)#", "the descriptor checksum after # must be 8 characters, not 0"],
    ["a checksum too long", "raw(deadbeef)#89f8spxmx", "the descriptor checksum after # must be 8 characters, not 9"],
    ["a checksum too short", "raw(deadbeef)#89f8spx", "the descriptor checksum after # must be 8 characters, not 7"],
    ["an error in the payload", "raw(deedbeef)#89f8spxm", "the descriptor checksum does not match: the descriptor was changed or mistyped"],
    ["an error in the checksum", "raw(deedbeef)##9f8spxm", "the descriptor checksum does not match: the descriptor was changed or mistyped"],
    ["a character outside the set", "raw(Ü)#00000000", "the descriptor holds a character descriptors never use"],
  ])("refuses %s (BIP 380's vectors)", (_case, text, error) => {
    expect(verifyDescriptorChecksum(text)).toEqual({ ok: false, error });
  });
});

describe("reading btc-family keys", () => {
  const tpub = accountXpub("m/84'/1'/0'", TPUB);

  it.each([
    ["pkh", `pkh(${tpub}/0/*)`],
    ["sh-wpkh", `sh(wpkh(${tpub}/0/*))`],
    ["wpkh", `wpkh(${tpub}/0/*)`],
    ["tr", `tr(${tpub}/0/*)`],
    ["wpkh", `wpkh([73c5da0a/84h/1h/0h]${tpub}/0/*)`],
    ["wpkh", `wpkh([73c5da0a/84'/1'/0']${tpub}/0/*)`],
    ["wpkh", withChecksum(`wpkh([73c5da0a/84h/1h/0h]${tpub}/0/*)`)],
    ["wpkh", `  wpkh(${tpub}/0/*)\n`],
  ])("takes a %s descriptor: %s", (kind, text) => {
    const key = parsed("btc", text);
    expect(key.kind).toBe(kind as WalletKey["kind"]);
    expect(key.branch).toEqual([0]);
    expect(key.canonical).toBe(kind === "sh-wpkh" ? `sh(wpkh(${tpub}/0/*))` : `${kind}(${tpub}/0/*)`);
  });

  it("keeps unhardened steps before the range: the change branch, or none", () => {
    expect(parsed("btc", `wpkh(${tpub}/1/*)`).branch).toEqual([1]);
    expect(parsed("btc", `wpkh(${tpub}/*)`).branch).toEqual([]);
    expect(parsed("btc", `wpkh(${tpub}/0/7/*)`).branch).toEqual([0, 7]);
  });

  it.each([
    ["xpub", accountXpub("m/44'/0'/0'"), "pkh"],
    ["tpub", accountXpub("m/44'/1'/0'", TPUB), "pkh"],
    ["ypub", accountXpub("m/49'/0'/0'", { public: 0x049d7cb2, private: 0x049d7878 }), "sh-wpkh"],
    ["upub", BIP49.upub, "sh-wpkh"],
    ["zpub", neutered(BIP84.zprv, ZPUB), "wpkh"],
    ["vpub", accountXpub("m/84'/1'/0'", { public: 0x045f1cf6, private: 0x045f18bc }), "wpkh"],
    ["Ltub", accountXpub("m/44'/2'/0'", { public: 0x019da462, private: 0x019d9cfe }), "pkh"],
    ["Mtub", accountXpub("m/49'/2'/0'", { public: 0x01b26ef6, private: 0x01b26792 }), "sh-wpkh"],
  ])("takes a bare %s as %s on K/0/*", (_prefix, text, kind) => {
    const key = parsed("btc", text);
    expect([key.kind, key.branch]).toEqual([kind as WalletKey["kind"], [0]]);
    // Written as a descriptor over the standard version, the form Bitcoin Core reads.
    expect(key.canonical).toMatch(kind === "sh-wpkh" ? /^sh\(wpkh\([xt]pub[1-9A-HJ-NP-Za-km-z]+\/0\/\*\)\)$/ : new RegExp(`^${kind}\\([xt]pub[1-9A-HJ-NP-Za-km-z]+/0/\\*\\)$`));
  });

  it("knows one key in all its spellings: bare, in a descriptor, with origin and checksum", () => {
    const zpub = neutered(BIP84.zprv, ZPUB);
    const bare = parsed("btc", zpub);
    const xpub = bare.xpub;
    for (const text of [`wpkh(${xpub}/0/*)`, withChecksum(`wpkh([73c5da0a/84h/0h/0h]${xpub}/0/*)`)]) expect(parsed("btc", text).identity).toBe(bare.identity);
    expect(parsed("btc", `pkh(${xpub}/0/*)`).identity).not.toBe(bare.identity);
    expect(parsed("btc", `wpkh(${xpub}/1/*)`).identity).not.toBe(bare.identity);
  });

  it("gives the key's BIP 32 fingerprint: the first 4 bytes of HASH160 of its public key", () => {
    // The BIP 86 account key's own fingerprint (its child keys name it as their parent's).
    expect(parsed("btc", `tr(${BIP86.xpub}/0/*)`).fingerprint).toBe("a7bea80d");
  });

  it.each([
    ["a bad checksum", () => `wpkh(${tpub}/0/*)#00000000`, "the descriptor checksum does not match: the descriptor was changed or mistyped"],
    ["a hardened step after the key", () => `wpkh(${tpub}/0h/*)`, "a hardened step after the key (0h) needs the private key; put the key derived at that step in the descriptor"],
    ["a hardened step after the key ('), ", () => `wpkh(${tpub}/1'/*)`, "a hardened step after the key (1') needs the private key; put the key derived at that step in the descriptor"],
    ["hardened children", () => `wpkh(${tpub}/0/*h)`, "a hardened step after the key (*h) needs the private key; use unhardened children, KEY/0/*"],
    ["a descriptor that is not ranged", () => `wpkh(${tpub}/0/5)`, "the descriptor must end in /* (a range of addresses), e.g. KEY/0/*"],
    ["a multipath key", () => `wpkh(${tpub}/<0;1>/*)`, "multipath keys (<0;1>) are not supported; give the receiving branch, KEY/0/*"],
    ["a step out of range", () => `wpkh(${tpub}/2147483648/*)`, '"2147483648" is not a derivation step (0 to 2147483647)'],
    ["a multisig descriptor", () => `wsh(multi(1,${tpub}/0/*))`, "wsh() descriptors are not supported; use pkh, sh(wpkh), wpkh or tr over one extended public key"],
    ["sh() around anything but wpkh()", () => `sh(pkh(${tpub}/0/*))`, "sh() descriptors are supported only around wpkh(): sh(wpkh(KEY/0/*))"],
    ["a taproot script tree", () => `tr(${tpub}/0/*,{pk(${tpub}/1/*)})`, "tr() with a script tree is not supported; give tr(KEY/0/*), a key-path-only output"],
    ["a zpub inside a descriptor", () => `wpkh(${neutered(BIP84.zprv, ZPUB)}/0/*)`, "a descriptor's key must be an xpub or tpub, not a zpub (the descriptor already names the address kind)"],
    ["a malformed origin", () => `wpkh([73c5da0/84h]${tpub}/0/*)`, "the key origin must be [8 hex digits of fingerprint/steps…], e.g. [d34db33f/84h/0h/0h]"],
    ["a key with a typo", () => `wpkh(${tpub.slice(0, 50)}X${tpub.slice(51)}/0/*)`, "the descriptor's key is not an extended public key: its base58check encoding, checksum or length is wrong"],
    ["unparsable text", () => "hello(world)", "key does not parse as an output descriptor: expected pkh(…), sh(wpkh(…)), wpkh(…) or tr(…)"],
    ["a bare key with a typo", () => `${tpub.slice(0, 50)}X${tpub.slice(51)}`, "key is neither an output descriptor nor an extended public key: its base58check encoding, checksum or length is wrong"],
    ["an address", () => "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu", "key is neither an output descriptor nor an extended public key: its base58check encoding, checksum or length is wrong"],
    ["a multisig SLIP-132 key", () => accountXpub("m/48'/0'/0'/2'", { public: 0x02aa7ed3, private: 0x02aa7a99 }), "a Zpub is a multisig key; payment wallets derive single-key addresses (pkh, sh(wpkh), wpkh, tr)"],
    ["an empty key", () => " ", "key must be an extended public key or an output descriptor"],
  ])("refuses %s, saying why", (_case, text, error) => {
    expect(refusal("btc", text())).toBe(error);
  });
});

describe("reading evm and tron keys", () => {
  it.each([
    ["evm", "m/44'/60'/0'"],
    ["tron", "m/44'/195'/0'"],
  ])("takes the %s account-level xpub (%s) as bip44, addresses K/0/i", (family, path) => {
    const key = parsed(family as Family, accountXpub(path));
    expect([key.kind, key.branch, key.xpub]).toEqual(["bip44", [0], accountXpub(path)]);
  });

  it.each([
    ["a descriptor", () => `wpkh(${accountXpub("m/44'/60'/0'")}/0/*)`, "evm networks take an account-level extended public key (xpub…), not an output descriptor or a path"],
    ["a key with a path", () => `${accountXpub("m/44'/60'/0'")}/0/*`, "evm networks take an account-level extended public key (xpub…), not an output descriptor or a path"],
    ["a zpub (a btc-family key)", () => neutered(BIP84.zprv, ZPUB), "a zpub is a Bitcoin-family key; evm networks take the account's xpub"],
    ["the key of an address (depth 5)", () => accountXpub("m/44'/60'/0'/0/0"), "key must be the account-level extended public key (m/44'/60'/0', depth 3); this one has depth 5"],
    ["the key of the receiving branch (depth 4)", () => accountXpub("m/44'/60'/0'/0"), "key must be the account-level extended public key (m/44'/60'/0', depth 3); this one has depth 4"],
    ["text that is no key", () => "0x9858EfFD232B4033E47d90003D41EC34EcaEda94", "key is not an extended public key: its base58check encoding, checksum or length is wrong"],
  ])("evm refuses %s, saying why", (_case, text, error) => {
    expect(refusal("evm", text())).toBe(error);
  });

  it("names tron's path to a tron key at the wrong depth", () => {
    expect(refusal("tron", accountXpub("m/44'/195'/0'/0"))).toBe("key must be the account-level extended public key (m/44'/195'/0', depth 3); this one has depth 4");
  });

  it.each(["solana", "generic"])("refuses a wallet on a %s network", (family) => {
    expect(refusal(family as Family, accountXpub("m/44'/60'/0'"))).toBe(`payment wallets derive addresses on btc, evm and tron networks, not ${family}`);
  });
});

describe("private keys", () => {
  const tprv = (() => {
    return viemKeyAt("m/84'/1'/0'").privateExtendedKey;
  })();

  it.each([
    ["a bare xprv (BIP 380)", BIP380.xprv],
    ["a bare zprv (BIP 84)", BIP84.zprv],
    ["a bare uprv (BIP 49)", BIP49.uprv],
    ["an xprv in a descriptor", `wpkh([deadbeef/0h/1h/2h]${BIP380.xprv}/0/*)`],
    ["an xprv in a descriptor with its checksum", withChecksum(`tr(${BIP86.xprv}/0/*)`)],
    ["a WIF key in a descriptor", `wpkh(${BIP380.wif})`],
    ["a bare WIF key", BIP380.wif],
    ["an xprv with a typo (its checksum broken)", `${BIP380.xprv.slice(0, 40)}Z${BIP380.xprv.slice(41)}`],
    ["an xprv re-versioned as an xpub (its key byte says private)", xprvAsXpub(tprv)],
  ])("refuses %s with the private-key sentence, on every family", (_case, text) => {
    for (const family of ["btc", "evm", "tron", "solana"] as Family[]) expect(refusal(family, text)).toBe(PRIVATE_KEY_REFUSAL);
    expect(holdsPrivateKey(text)).toBe(true);
  });

  it("finds none in public keys and descriptors", () => {
    for (const text of [BIP380.xpub, BIP86.xpub, BIP49.upub, `tr([73c5da0a/86h/0h/0h]${BIP86.xpub}/0/*)`]) expect(holdsPrivateKey(text)).toBe(false);
  });
});

/** An extended private key's bytes under the xpub version: only its 0x00 key byte says what it is. */
function xprvAsXpub(prv: string): string {
  const codec = createBase58check(sha256);
  const payload = codec.decode(prv);
  payload.set([0x04, 0x88, 0xb2, 0x1e], 0);
  return codec.encode(payload);
}

describe("deriving addresses", () => {
  it("tr: BIP 86's receiving addresses, and its change branch", () => {
    const derive = addressDeriver(parsed("btc", `tr([73c5da0a/86h/0h/0h]${BIP86.xpub}/0/*)`), BITCOIN);
    expect([derive(0), derive(1)]).toEqual(BIP86.receive);
    expect(addressDeriver(parsed("btc", `tr(${BIP86.xpub}/1/*)`), BITCOIN)(0)).toBe(BIP86.firstChange);
  });

  it("wpkh: BIP 84's receiving addresses from its account key given as a bare zpub", () => {
    const derive = addressDeriver(parsed("btc", neutered(BIP84.zprv, ZPUB)), BITCOIN);
    expect([derive(0), derive(1)]).toEqual(BIP84.receive);
  });

  it("sh-wpkh: BIP 49's first testnet address from its upub, with the network's P2SH version", () => {
    expect(addressDeriver(parsed("btc", BIP49.upub), TESTNET)(0)).toBe(BIP49.firstReceive);
  });

  it("pkh: the test phrase's first Bitcoin and Litecoin addresses (m/44'/0'/0'/0/0, m/44'/2'/0'/0/0) with each network's version byte", () => {
    expect(addressDeriver(parsed("btc", accountXpub("m/44'/0'/0'")), BITCOIN)(0)).toBe("1LqBGSKuX5yYUonjxT5qGfpUsXKYYWeabA");
    expect(addressDeriver(parsed("btc", accountXpub("m/44'/2'/0'")), { family: "btc", bech32_hrp: "ltc", p2pkh_version: 48, p2sh_version: 50 })(0)).toBe(
      "LUWPbpM43E2p7ZSh8cyTBEkvpHmr3cB8Ez",
    );
  });

  it("evm: equals viem's mnemonicToAccount(phrase, { addressIndex: i }) for i = 0..19, lower-case", () => {
    const derive = addressDeriver(parsed("evm", accountXpub("m/44'/60'/0'")), { family: "evm" });
    for (let i = 0; i < 20; i++) expect(derive(i)).toBe(mnemonicToAccount(TEST_MNEMONIC, { addressIndex: i }).address.toLowerCase());
    expect(derive(0)).toBe("0x9858effd232b4033e47d90003d41ec34ecaeda94");
  });

  it("tron: the published addresses, and for i = 0..19 base58check(0x41 ‖ keccak(pub)[12:]) of viem's key at m/44'/195'/0'/0/i", () => {
    const derive = addressDeriver(parsed("tron", accountXpub("m/44'/195'/0'")), { family: "tron" });
    expect([derive(0), derive(1)]).toEqual(TRON_RECEIVE);
    const codec = createBase58check(sha256);
    for (let i = 0; i < 20; i++) {
      const publicKey = viemAccountAt(`m/44'/195'/0'/0/${i}`).publicKey;
      const id = keccak_256(hex.decode(publicKey.slice(4))).slice(12);
      expect(derive(i)).toBe(codec.encode(Uint8Array.from([0x41, ...id])));
    }
  });

  it("refuses an index past 2^31 - 1, which a public key cannot derive", () => {
    const derive = addressDeriver(parsed("evm", accountXpub("m/44'/60'/0'")), { family: "evm" });
    expect(() => derive(2 ** 31)).toThrow(RangeError);
  });
});

describe("when a wallet_gap notice is due", () => {
  it.each([
    [20, 20, 0, false, "a tail at the gap limit"],
    [21, 20, 0, true, "the tail passing the gap limit"],
    [22, 20, 21, false, "the tail one longer than at the last notice"],
    [41, 20, 21, false, "the tail not yet doubled"],
    [42, 20, 21, true, "the tail doubled since the last notice"],
    [3, 2, 0, true, "a run past the limit again after a payment reset the notice"],
  ])("tail %d, gap limit %d, last notice at %d → %p (%s)", (tail, limit, last, due) => {
    expect(gapNoticeDue(tail, limit, last)).toBe(due);
  });
});
