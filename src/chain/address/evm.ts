import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";

// EVM addresses: 0x + 40 hex digits, mixed case carrying the EIP-55 checksum.

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

/** The address lower-cased, or null when it is no EVM address or its mixed case breaks the checksum. */
export function normalizeEvmAddress(address: string): string | null {
  if (!EVM_PATTERN.test(address)) return null;
  const hex = address.slice(2);
  // Single-case input carries no checksum, so there is nothing to verify.
  const isMixedCase = hex !== hex.toLowerCase() && hex !== hex.toUpperCase();
  if (isMixedCase && !hasValidEip55Checksum(hex)) return null;
  return `0x${hex.toLowerCase()}`;
}

/** True when `address` has an EVM address's form and only its mixed case, the EIP-55 checksum, refuses it: a mistyped character. */
export function breaksEip55Checksum(address: string): boolean {
  if (!EVM_PATTERN.test(address)) return false;
  const hex = address.slice(2);
  return hex !== hex.toLowerCase() && hex !== hex.toUpperCase() && !hasValidEip55Checksum(hex);
}
