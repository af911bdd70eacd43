import { sha256 } from "@noble/hashes/sha2.js";
import { createBase58check } from "@scure/base";

// Extended keys as wallets export them (BIP 32 serialization, 78 bytes in base58check) and the
// SLIP-132 version bytes that say which addresses a key is for. This file reads the bytes only;
// the key arithmetic is @scure/bip32's (./derive-address.ts).

const base58check = createBase58check(sha256);

/** The address kinds a btc-family wallet derives, named as the API shows them; `bip44` is an evm or tron account key. */
export type WalletKind = "pkh" | "sh-wpkh" | "wpkh" | "tr" | "bip44";

/** What a SLIP-132 public version stands for: its prefix, the kind it picks when given bare, whether it is a test chain's. */
export type PublicVersion = { prefix: string; kind: "pkh" | "sh-wpkh" | "wpkh" | "multisig"; testnet: boolean };

/** Public versions by their 4 bytes (SLIP-132's registry for Bitcoin and Litecoin). */
export const PUBLIC_VERSIONS: ReadonlyMap<number, PublicVersion> = new Map([
  [0x0488b21e, { prefix: "xpub", kind: "pkh", testnet: false }],
  [0x049d7cb2, { prefix: "ypub", kind: "sh-wpkh", testnet: false }],
  [0x04b24746, { prefix: "zpub", kind: "wpkh", testnet: false }],
  [0x0295b43f, { prefix: "Ypub", kind: "multisig", testnet: false }],
  [0x02aa7ed3, { prefix: "Zpub", kind: "multisig", testnet: false }],
  [0x043587cf, { prefix: "tpub", kind: "pkh", testnet: true }],
  [0x044a5262, { prefix: "upub", kind: "sh-wpkh", testnet: true }],
  [0x045f1cf6, { prefix: "vpub", kind: "wpkh", testnet: true }],
  [0x024289ef, { prefix: "Upub", kind: "multisig", testnet: true }],
  [0x02575483, { prefix: "Vpub", kind: "multisig", testnet: true }],
  [0x019da462, { prefix: "Ltub", kind: "pkh", testnet: false }],
  [0x01b26ef6, { prefix: "Mtub", kind: "sh-wpkh", testnet: false }],
] as const);

/** The private versions of the same registry, with Dogecoin's: a key with one of these is refused before anything else is said. */
const PRIVATE_VERSIONS: ReadonlySet<number> = new Set([
  0x0488ade4, 0x049d7878, 0x04b2430c, 0x0295b005, 0x02aa7a99, 0x04358394, 0x044a4e28, 0x045f18bc, 0x024285b5, 0x02575048, 0x019d9cfe, 0x01b26792,
  0x02fac398,
]);

/** The standard versions a canonical key is written with: xpub, or tpub for a test chain's key. */
export const XPUB_VERSION = 0x0488b21e;
export const TPUB_VERSION = 0x043587cf;

/** The 78 bytes of a serialized extended key, read without any key arithmetic. */
export type ExtendedKeyBytes = {
  version: number;
  depth: number;
  /** The child number this key was derived with (≥ 2³¹: hardened). */
  childNumber: number;
  chainCode: Uint8Array;
  /** 33 bytes: 0x02/0x03 and X for a public key, 0x00 and the secret for a private one. */
  keyData: Uint8Array;
  payload: Uint8Array;
};

/** Decodes a base58check extended key; null when it is not one (bad alphabet, checksum or length). */
export function decodeExtendedKey(text: string): ExtendedKeyBytes | null {
  // 111 or 112 characters for 82 bytes; anything far off is not worth decoding.
  if (text.length < 100 || text.length > 120) return null;
  let payload: Uint8Array;
  try {
    payload = base58check.decode(text);
  } catch {
    return null;
  }
  if (payload.length !== 78) return null;
  const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  return {
    version: view.getUint32(0),
    depth: payload[4],
    childNumber: view.getUint32(9),
    chainCode: payload.slice(13, 45),
    keyData: payload.slice(45, 78),
    payload,
  };
}

/** The same key bytes under another version (xpub ↔ zpub …): how a bare SLIP-132 key becomes a descriptor's xpub. */
export function withVersion(key: ExtendedKeyBytes, version: number): string {
  const payload = key.payload.slice();
  new DataView(payload.buffer).setUint32(0, version);
  return base58check.encode(payload);
}

// A run of base58 characters long enough to be an extended key or a WIF private key.
const BASE58_RUN = /[1-9A-HJ-NP-Za-km-z]{50,}/g;
// What each private version's text starts with: caught even when a typo spoils the checksum.
const PRIVATE_PREFIX = /^(?:[xyztuvYZUV]prv|Ltpv|Mtpv|dgpv)/;

/**
 * Whether `text` carries a private key anywhere: an extended private key (by version, by its
 * 0x00 key byte, or by its prefix even when mistyped) or a WIF private key. Checked before any
 * other rule, so a private key is always answered as one and never echoed back.
 */
export function holdsPrivateKey(text: string): boolean {
  for (const [run] of text.matchAll(BASE58_RUN)) {
    if (PRIVATE_PREFIX.test(run)) return true;
    const key = decodeExtendedKey(run);
    if (key && (PRIVATE_VERSIONS.has(key.version) || key.keyData[0] === 0)) return true;
    if (isWif(run)) return true;
  }
  return false;
}

/** WIF: base58check of a version byte, 32 secret bytes and 0x01 when the public key is compressed. */
function isWif(run: string): boolean {
  if (run.length < 51 || run.length > 52) return false;
  try {
    const payload = base58check.decode(run);
    return payload.length === 33 || (payload.length === 34 && payload[33] === 1);
  } catch {
    return false;
  }
}
