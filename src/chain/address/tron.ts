import { sha256 } from "@noble/hashes/sha2.js";
import { createBase58check, hex } from "@scure/base";

// Tron addresses are base58check over 0x41 + the 20-byte EVM-style account id. Conversions go
// through @scure/base, never by hand.

const TRON_VERSION = 0x41;

const base58check = createBase58check(sha256);

/** The base58check `T…` address of a 20-byte Tron account id (0x41 ‖ id): how node data and derived keys become addresses. */
export function tronAddressOf(accountId: Uint8Array): string {
  if (accountId.length !== 20) throw new RangeError("a Tron account id is 20 bytes");
  const payload = new Uint8Array(21);
  payload[0] = TRON_VERSION;
  payload.set(accountId, 1);
  return base58check.encode(payload);
}

/** The base58check form of a 20-byte account id given as 40 hex digits (a log's topic or address). */
export function tronAddressOfAccountId(hex40: string): string {
  return tronAddressOf(hex.decode(hex40.toLowerCase()));
}

/** The address as given, or null when it is no base58check `T…` address (bad alphabet, checksum, version or length). */
export function normalizeTronAddress(address: string): string | null {
  // Implied by the 0x41 version byte, but a cheap way to skip decoding obvious non-Tron input.
  if (!address.startsWith("T")) return null;
  let payload: Uint8Array;
  try {
    payload = base58check.decode(address);
  } catch {
    return null;
  }
  if (payload.length !== 21 || payload[0] !== TRON_VERSION) return null;
  return address;
}
