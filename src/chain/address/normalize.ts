import type { Family } from "../family.ts";
import { type BtcAddressParams, btcAddressParams, describeBtcAddressForms, isBech32String, normalizeBtcAddress } from "./btc.ts";
import { breaksEip55Checksum, normalizeEvmAddress } from "./evm.ts";
import { normalizeSolanaAddress } from "./solana.ts";
import { normalizeTronAddress } from "./tron.ts";

// Addresses of any family: one codec per family beside this file, and the rules every input edge
// shares (trimmed, capped, never a throw).

// Longer than any real address; checked before decoding so a huge input costs nothing.
export const MAX_ADDRESS_LENGTH = 128;

// Returns null instead of throwing; the codecs throw on any malformed input.
type Normalizer = (address: string) => string | null;

// Unknown chains: accept any non-blank label; the length and trim rules still apply.
const normalizeGeneric: Normalizer = (address) => (address.length > 0 ? address : null);

const NORMALIZERS: Record<Family, Normalizer> = {
  evm: normalizeEvmAddress,
  // The family alone says nothing of the chain: Bitcoin mainnet's forms (normalizeNetworkAddress
  // knows a network's own).
  btc: (address) => normalizeBtcAddress(btcAddressParams({}), address),
  tron: normalizeTronAddress,
  solana: normalizeSolanaAddress,
  generic: normalizeGeneric,
};

/** The config keys an address is checked against: the family, and a btc network's prefix and version bytes. */
export type AddressRules = { family: Family } & Partial<BtcAddressParams>;

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

/**
 * The 400 answer for an address normalizeNetworkAddress refused: a btc network names the forms it
 * takes, and an evm address refused for its checksum alone says so.
 */
export function invalidAddress(slug: string, network: AddressRules, input?: unknown): string {
  const message = `Invalid address for network ${slug}`;
  if (network.family === "evm" && typeof input === "string" && breaksEip55Checksum(input.trim()))
    return `${message}: its mixed-case letters do not match its EIP-55 checksum; check it for a mistyped character`;
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
