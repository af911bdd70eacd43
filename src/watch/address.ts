import { keccak_256 } from "@noble/hashes/sha3.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { base58, createBase58check } from "@scure/base";
import type { Family, NetworkConfig } from "../config/schema.ts";
import { type BtcAddressParams, btcAddressParams, describeBtcAddressForms, isBech32String, normalizeBtcAddress } from "./btc-address.ts";

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

/** Decodes base58check, or returns null on a bad alphabet or checksum. */
function decodeBase58check(address: string): Uint8Array | null {
  try {
    return base58check.decode(address);
  } catch {
    return null;
  }
}

// Tron addresses are base58check over 0x41 + the 20-byte EVM-style account id.
const TRON_VERSION = 0x41;

/** The base58check `T…` address of a 20-byte Tron account id (0x41 ‖ id): how node data and derived keys become addresses. */
export function tronAddressOf(accountId: Uint8Array): string {
  if (accountId.length !== 20) throw new RangeError("a Tron account id is 20 bytes");
  const payload = new Uint8Array(21);
  payload[0] = TRON_VERSION;
  payload.set(accountId, 1);
  return base58check.encode(payload);
}

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
  // The family alone says nothing of the chain: Bitcoin mainnet's forms (normalizeNetworkAddress
  // knows a network's own).
  btc: (address) => normalizeBtcAddress(btcAddressParams({}), address),
  tron: normalizeTron,
  solana: normalizeSolana,
  generic: normalizeGeneric,
};

/** The config keys an address is checked against: the family, and a btc network's prefix and version bytes. */
export type AddressRules = Pick<NetworkConfig, "family"> & Partial<BtcAddressParams>;

/**
 * Returns the normalized address, or null when `input` is not a valid address of `family`. For btc
 * that means Bitcoin mainnet; a configured network's address goes through normalizeNetworkAddress.
 */
export function normalizeAddress(family: Family, input: string): string | null {
  if (!Object.hasOwn(NORMALIZERS, family)) return null;
  return guarded(NORMALIZERS[family], input);
}

/** Returns the normalized address, or null when `input` is not a valid address on `network`. */
export function normalizeNetworkAddress(network: AddressRules, input: string): string | null {
  if (network.family !== "btc") return normalizeAddress(network.family, input);
  const params = btcAddressParams(network);
  return guarded((address) => normalizeBtcAddress(params, address), input);
}

/** The 400 answer for an address normalizeNetworkAddress refused; a btc network names the forms it takes. */
export function invalidAddress(slug: string, network: AddressRules): string {
  const message = `Invalid address for network ${slug}`;
  if (network.family !== "btc") return message;
  return `${message}: expected ${describeBtcAddressForms(btcAddressParams(network))}`;
}

/** Trims, caps the length, and turns anything a codec throws into null. */
function guarded(normalize: Normalizer, input: string): string | null {
  // Callers outside the type system (JSON bodies, CLI args) may pass anything.
  if (typeof input !== "string") return null;
  const address = input.trim();
  if (address.length > MAX_ADDRESS_LENGTH) return null;
  try {
    return normalize(address);
  } catch {
    // Codec bugs or unexpected input must never surface as a 500.
    return null;
  }
}

/**
 * A feed address in the form watches are stored in (normalizeNetworkAddress): evm lower-case, btc
 * bech32/bech32m lower-case whatever the network's prefix, everything else as given. No validation:
 * an indexer may send anything, and an invalid address simply never matches a watch.
 */
export function matchAddress(family: Family, address: string | null | undefined): string | null {
  if (address === null || address === undefined) return null;
  if (family === "evm") return address.toLowerCase();
  // Mixed case is tolerated (a sloppy feed); base58 keeps its case, which is part of the encoding.
  if (family === "btc" && address !== address.toLowerCase() && isBech32String(address)) return address.toLowerCase();
  return address;
}
