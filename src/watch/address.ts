import { keccak_256 } from "@noble/hashes/sha3.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { base58, bech32, bech32m, createBase58check } from "@scure/base";
import type { Family } from "../config/schema.ts";

/** Every family of config/schema.ts FamilySchema, each with a normalizer below. */
export const FAMILIES: readonly Family[] = Object.freeze(["evm", "btc", "tron", "solana", "generic"]);

// Longer than any real address; checked before decoding so a huge input costs nothing.
export const MAX_ADDRESS_LENGTH = 128;

const base58check = createBase58check(sha256);

// Returns null instead of throwing; the codecs throw on any malformed input.
type Normalizer = (address: string) => string | null;

const EVM_PATTERN = /^0x[0-9a-fA-F]{40}$/;

/** EIP-55: a hex letter is upper-case iff the matching nibble of keccak256(lower-case hex) is >= 8. */
function hasValidEip55Checksum(hex: string): boolean {
  const lower = hex.toLowerCase();
  const hash = bytesToHex(keccak_256(utf8ToBytes(lower)));
  for (let i = 0; i < hex.length; i++) {
    const char = hex.charAt(i);
    if (char >= "0" && char <= "9") continue;
    const wantUpper = parseInt(hash.charAt(i), 16) >= 8;
    if ((char !== lower.charAt(i)) !== wantUpper) return false;
  }
  return true;
}

function normalizeEvm(address: string): string | null {
  if (!EVM_PATTERN.test(address)) return null;
  const hex = address.slice(2);
  // Single-case input carries no checksum, so there is nothing to verify.
  const isMixedCase = hex !== hex.toLowerCase() && hex !== hex.toUpperCase();
  if (isMixedCase && !hasValidEip55Checksum(hex)) return null;
  return `0x${hex.toLowerCase()}`;
}

// Mainnet P2PKH, mainnet P2SH, testnet P2PKH, testnet P2SH.
const BTC_BASE58_VERSIONS = new Set([0x00, 0x05, 0x6f, 0xc4]);
const SEGWIT_PREFIXES = new Set(["bc", "tb"]);

/** Decodes base58check, or returns null on a bad alphabet or checksum. */
function decodeBase58check(address: string): Uint8Array | null {
  try {
    return base58check.decode(address);
  } catch {
    return null;
  }
}

/** BIP173/BIP350: v0 uses bech32 with a 20- or 32-byte program; v1..16 use bech32m with 2..40 bytes. */
function isSegwitAddress(address: string): boolean {
  // The two checksums differ, so at most one of the decoders accepts a given string.
  const asBech32 = bech32.decodeUnsafe(address);
  const decoded = asBech32 ?? bech32m.decodeUnsafe(address);
  if (!decoded || !SEGWIT_PREFIXES.has(decoded.prefix)) return false;
  const [version, ...programWords] = decoded.words;
  if (version === undefined || version > 16) return false;
  // BIP350 ties the checksum to the version, so a string valid under the other one is rejected.
  if ((version === 0) !== Boolean(asBech32)) return false;
  const program = bech32.fromWordsUnsafe(programWords);
  if (!program || program.length < 2 || program.length > 40) return false;
  return version !== 0 || program.length === 20 || program.length === 32;
}

function normalizeBtc(address: string): string | null {
  // bech32 forbids mixed case (the decoder rejects it), so lower-casing is lossless.
  if (isSegwitAddress(address)) return address.toLowerCase();
  const payload = decodeBase58check(address);
  const version = payload?.[0];
  if (!payload || payload.length !== 21 || version === undefined) return null;
  return BTC_BASE58_VERSIONS.has(version) ? address : null;
}

// Tron addresses are base58check over 0x41 + the 20-byte EVM-style account id.
const TRON_VERSION = 0x41;

function normalizeTron(address: string): string | null {
  // Implied by the 0x41 version byte, but a cheap way to skip decoding obvious non-Tron input.
  if (!address.startsWith("T")) return null;
  const payload = decodeBase58check(address);
  if (!payload || payload.length !== 21 || payload[0] !== TRON_VERSION) return null;
  return address;
}

function normalizeSolana(address: string): string | null {
  // 32 bytes always encode to 32..44 characters; checking first skips decoding anything else.
  if (address.length < 32 || address.length > 44) return null;
  try {
    // Plain base58 has no checksum: any 32-byte key is a valid address.
    return base58.decode(address).length === 32 ? address : null;
  } catch {
    return null;
  }
}

// Unknown chains: accept any non-blank label; the length and trim rules still apply.
const normalizeGeneric: Normalizer = (address) => (address.length > 0 ? address : null);

const NORMALIZERS: Record<Family, Normalizer> = {
  evm: normalizeEvm,
  btc: normalizeBtc,
  tron: normalizeTron,
  solana: normalizeSolana,
  generic: normalizeGeneric,
};

/** Returns the normalized address, or null when `input` is not a valid address of `family`. */
export function normalizeAddress(family: Family, input: string): string | null {
  // Callers outside the type system (JSON bodies, CLI args) may pass anything.
  if (typeof input !== "string" || !Object.hasOwn(NORMALIZERS, family)) return null;
  const address = input.trim();
  if (address.length > MAX_ADDRESS_LENGTH) return null;
  try {
    return NORMALIZERS[family](address);
  } catch {
    // Codec bugs or unexpected input must never surface as a 500.
    return null;
  }
}

const BECH32_PREFIX = /^(bc1|tb1)/i;

/**
 * A feed address in the form watches are stored in (normalizeAddress): evm lower-case, btc
 * bech32 lower-case, everything else as given. No validation: an indexer may send anything, and
 * an invalid address simply never matches a watch.
 */
export function matchAddress(family: Family, address: string | null | undefined): string | null {
  if (address === null || address === undefined) return null;
  if (family === "evm") return address.toLowerCase();
  if (family === "btc" && BECH32_PREFIX.test(address)) return address.toLowerCase();
  return address;
}
