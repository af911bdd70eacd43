import { sha256 } from "@noble/hashes/sha2.js";
import { ripemd160 } from "@noble/hashes/legacy.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import type { Family } from "../../config/schema.ts";
import { verifyDescriptorChecksum } from "./descriptor-checksum.ts";
import { decodeExtendedKey, type ExtendedKeyBytes, holdsPrivateKey, PUBLIC_VERSIONS, TPUB_VERSION, type WalletKind, withVersion, XPUB_VERSION } from "./extended-key.ts";

// What a wallet's `key` says (docs/payments.md): on btc-family networks an output descriptor
// (`pkh`, `sh(wpkh)`, `wpkh`, `tr` over an extended public key, optional key origin and checksum)
// or a bare SLIP-132 key; on evm and tron networks an account-level extended public key. Parsing
// is pure: the result names the kind, the key, the unhardened steps to the receiving branch and
// a canonical text that is stored (sealed) and parsed again to derive.

/** The refusal of a private key, the same whatever the family or form. */
export const PRIVATE_KEY_REFUSAL = "This is a private key; give the extended public key.";

/** Longest key text read: a descriptor with a long key origin stays well under it. */
export const MAX_KEY_LENGTH = 1000;

/** A parsed wallet key. */
export type WalletKey = {
  kind: WalletKind;
  /** The extended public key, written with the standard xpub (or tpub) version. */
  xpub: string;
  /** Unhardened steps from the key to the branch whose children are the addresses (`[0]` for `K/0/*`). */
  branch: number[];
  /** First 4 bytes of HASH160 of the key's public key, hex (BIP 32's fingerprint of this key). */
  fingerprint: string;
  /** Tells two texts of the same key apart from different keys: SHA-256 of kind, branch, chain code and public key. */
  identity: string;
  /** The text stored and parsed again: a descriptor without origin and checksum (btc), the xpub (evm, tron). */
  canonical: string;
};

export type KeyParse = { ok: true; key: WalletKey } | { ok: false; error: string };

/** The families a wallet can derive for. */
export const WALLET_FAMILIES: readonly Family[] = ["btc", "evm", "tron"];

const fail = (error: string): KeyParse => ({ ok: false, error });

/** Parses `text` as the key of a wallet on a network of `family`; every refusal says why. */
export function parseWalletKey(family: Family, text: string): KeyParse {
  if (typeof text !== "string" || text.trim() === "") return fail("key must be an extended public key or an output descriptor");
  if (text.length > MAX_KEY_LENGTH) return fail(`key must be at most ${MAX_KEY_LENGTH} characters`);
  // First, before any other rule: a private key is named as one, whatever else is wrong.
  if (holdsPrivateKey(text)) return fail(PRIVATE_KEY_REFUSAL);
  const trimmed = text.trim();
  if (!WALLET_FAMILIES.includes(family)) return fail(`payment wallets derive addresses on btc, evm and tron networks, not ${family}`);
  if (family === "btc") return /[(#]/.test(trimmed) ? parseDescriptor(trimmed) : parseBareBtcKey(trimmed);
  return parseAccountKey(family, trimmed);
}

/** An evm or tron account-level key (m/44'/60'/0', m/44'/195'/0'): depth 3, reached by a hardened step; addresses K/0/i. */
function parseAccountKey(family: Family, text: string): KeyParse {
  if (/[()[\]#/]/.test(text)) return fail(`${family} networks take an account-level extended public key (xpub…), not an output descriptor or a path`);
  const key = decodeExtendedKey(text);
  if (!key) return fail("key is not an extended public key: its base58check encoding, checksum or length is wrong");
  const version = PUBLIC_VERSIONS.get(key.version);
  if (!version) return fail("key has unknown version bytes; give an xpub");
  if (version.prefix !== "xpub" && version.prefix !== "tpub")
    return fail(`a ${version.prefix} is a Bitcoin-family key; ${family} networks take the account's xpub`);
  if (key.depth !== 3 || key.childNumber < 0x80000000) {
    const path = family === "evm" ? "m/44'/60'/0'" : "m/44'/195'/0'";
    return fail(`key must be the account-level extended public key (${path}, depth 3); this one has depth ${key.depth}`);
  }
  return built("bip44", key, [0], (xpub) => xpub);
}

/** A bare SLIP-132 key: its version picks the kind; addresses K/0/i. */
function parseBareBtcKey(text: string): KeyParse {
  const key = decodeExtendedKey(text);
  if (!key) return fail("key is neither an output descriptor nor an extended public key: its base58check encoding, checksum or length is wrong");
  const version = PUBLIC_VERSIONS.get(key.version);
  if (!version) return fail("key has version bytes of no known extended public key (xpub, ypub, zpub, tpub, upub, vpub, Ltub, Mtub)");
  if (version.kind === "multisig") return fail(`a ${version.prefix} is a multisig key; payment wallets derive single-key addresses (pkh, sh(wpkh), wpkh, tr)`);
  return built(version.kind, key, [0], descriptorOf(version.kind));
}

// pkh(KEY), wpkh(KEY), tr(KEY) and sh(wpkh(KEY)): the kinds and how each wraps its key.
const DESCRIPTOR = /^(pkh|wpkh|tr|sh)\((.*)\)$/s;
const ORIGIN = /^\[([0-9a-fA-F]{8})((?:\/\d+['hH]?)*)\]/;
const OTHER_FUNCTIONS = /^(wsh|multi|sortedmulti|combo|addr|raw|pk|rawtr|musig|multi_a|sortedmulti_a)\(/;

/** A btc-family output descriptor over one extended public key, ranged over unhardened children. */
function parseDescriptor(text: string): KeyParse {
  const checked = verifyDescriptorChecksum(text);
  if (!checked.ok) return fail(checked.error);
  const body = checked.descriptor;
  const outer = DESCRIPTOR.exec(body);
  if (!outer) {
    const other = OTHER_FUNCTIONS.exec(body);
    if (other) return fail(`${other[1]}() descriptors are not supported; use pkh, sh(wpkh), wpkh or tr over one extended public key`);
    return fail("key does not parse as an output descriptor: expected pkh(…), sh(wpkh(…)), wpkh(…) or tr(…)");
  }
  let kind: "pkh" | "sh-wpkh" | "wpkh" | "tr";
  let keyExpression = outer[2];
  if (outer[1] === "sh") {
    const inner = /^wpkh\((.*)\)$/s.exec(keyExpression);
    if (!inner) return fail("sh() descriptors are supported only around wpkh(): sh(wpkh(KEY/0/*))");
    kind = "sh-wpkh";
    keyExpression = inner[1];
  } else kind = outer[1] as "pkh" | "wpkh" | "tr";
  if (kind === "tr" && keyExpression.includes(",")) return fail("tr() with a script tree is not supported; give tr(KEY/0/*), a key-path-only output");
  return parseKeyExpression(kind, keyExpression);
}

/** `[origin]KEY/a/b/*`: the origin is checked for shape and otherwise ignored (it names where the key came from, not how addresses are made). */
function parseKeyExpression(kind: "pkh" | "sh-wpkh" | "wpkh" | "tr", expression: string): KeyParse {
  let rest = expression;
  if (rest.startsWith("[")) {
    const origin = ORIGIN.exec(rest);
    if (!origin) return fail("the key origin must be [8 hex digits of fingerprint/steps…], e.g. [d34db33f/84h/0h/0h]");
    rest = rest.slice(origin[0].length);
  }
  const [keyText, ...steps] = rest.split("/");
  if (keyText.startsWith("<") || steps.some((s) => s.includes("<"))) return fail("multipath keys (<0;1>) are not supported; give the receiving branch, KEY/0/*");
  const key = decodeExtendedKey(keyText);
  if (!key) return fail("the descriptor's key is not an extended public key: its base58check encoding, checksum or length is wrong");
  const version = PUBLIC_VERSIONS.get(key.version);
  if (!version || (version.prefix !== "xpub" && version.prefix !== "tpub"))
    return fail(`a descriptor's key must be an xpub or tpub${version ? `, not a ${version.prefix} (the descriptor already names the address kind)` : ""}`);
  if (steps.length === 0 || steps[steps.length - 1] !== "*") {
    const last = steps[steps.length - 1] ?? "";
    if (/^\*['hH]$/.test(last)) return fail("a hardened step after the key (*h) needs the private key; use unhardened children, KEY/0/*");
    return fail("the descriptor must end in /* (a range of addresses), e.g. KEY/0/*");
  }
  const branch: number[] = [];
  for (const step of steps.slice(0, -1)) {
    if (/^\d+['hH]$/.test(step)) return fail(`a hardened step after the key (${step}) needs the private key; put the key derived at that step in the descriptor`);
    if (!/^\d{1,10}$/.test(step) || Number(step) >= 0x80000000) return fail(`${JSON.stringify(step)} is not a derivation step (0 to 2147483647)`);
    branch.push(Number(step));
  }
  return built(kind, key, branch, descriptorOf(kind, branch));
}

/** The canonical descriptor of a kind over a key and branch (the form Bitcoin Core's deriveaddresses takes). */
function descriptorOf(kind: "pkh" | "sh-wpkh" | "wpkh" | "tr", branch: readonly number[] = [0]): (xpub: string) => string {
  const path = [...branch.map(String), "*"].join("/");
  return (xpub) => (kind === "sh-wpkh" ? `sh(wpkh(${xpub}/${path}))` : `${kind}(${xpub}/${path})`);
}

function built(kind: WalletKind, key: ExtendedKeyBytes, branch: number[], canonicalOf: (xpub: string) => string): KeyParse {
  if (key.keyData[0] !== 0x02 && key.keyData[0] !== 0x03) return fail("key's public key is not a compressed secp256k1 point");
  const testnet = PUBLIC_VERSIONS.get(key.version)?.testnet ?? false;
  const xpub = withVersion(key, testnet ? TPUB_VERSION : XPUB_VERSION);
  const fingerprint = bytesToHex(ripemd160(sha256(key.keyData)).slice(0, 4));
  const identity = bytesToHex(sha256(new TextEncoder().encode(`${kind}/${branch.join("/")}/${bytesToHex(key.chainCode)}/${bytesToHex(key.keyData)}`)));
  return { ok: true, key: { kind, xpub, branch, fingerprint, identity, canonical: canonicalOf(xpub) } };
}
