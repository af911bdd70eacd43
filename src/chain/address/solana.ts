import { base58 } from "@scure/base";

// Solana addresses: plain base58 of a 32-byte public key.

/** The address as given, or null when it is no base58 string of 32 bytes. */
export function normalizeSolanaAddress(address: string): string | null {
  // 32 bytes always encode to 32..44 characters; checking first skips decoding anything else.
  if (address.length < 32 || address.length > 44) return null;
  try {
    // Plain base58 has no checksum: any 32-byte key is a valid address.
    return base58.decode(address).length === 32 ? address : null;
  } catch {
    return null;
  }
}
