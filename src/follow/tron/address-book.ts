import { normalizeAddress } from "../../chain/address/normalize.ts";
import { tronAddressOfAccountId } from "../../chain/address/tron.ts";

// Tron addresses as a java-tron node sends them, in the form watches and events use: base58check
// `T…` over 0x41 + the 20-byte account id, converted by the tron codec (chain/address/tron.ts).

const HEX41 = /^41[0-9a-fA-F]{40}$/;
const HEX40 = /^[0-9a-fA-F]{40}$/;

/**
 * Addresses of node answers, checked and converted, remembering the last few thousand: the same
 * contracts and wallets recur block after block, and a base58check decode costs about 10 µs. One
 * book per follower; nothing in it outlives the process.
 */
export type TronAddressBook = {
  /**
   * An address field as a node sends it: base58check `T…` (with `visible: true`) or 41 + 40 hex
   * (without), as `T…`; null when it is neither a valid Tron address nor well-formed hex.
   */
  fromNode(value: unknown): string | null;
  /** A log's 20-byte account id (40 hex digits) as `T…`; null when it is not 40 hex digits. */
  fromAccountId(value: unknown): string | null;
};

export function createTronAddressBook(max = 10_000): TronAddressBook {
  // Node forms (T…, 41…) and account ids (40 hex) apart: an id is never looked up as a node form.
  const known = new Map<string, string | null>();
  const ids = new Map<string, string>();
  const remember = <V extends string | null>(book: Map<string, V>, key: string, address: V) => {
    // A full book starts again: simpler than an LRU, and a block refills what it needs.
    if (book.size >= max) book.clear();
    book.set(key, address);
    return address;
  };
  return {
    fromNode(value) {
      if (typeof value !== "string" || value.length > 64) return null;
      const seen = known.get(value);
      if (seen !== undefined) return seen;
      if (HEX41.test(value)) return remember(known, value, tronAddressOfAccountId(value.slice(2)));
      return remember(known, value, normalizeAddress("tron", value) === value ? value : null);
    },
    fromAccountId(value) {
      if (typeof value !== "string") return null;
      const seen = ids.get(value);
      if (seen !== undefined) return seen;
      return HEX40.test(value) ? remember(ids, value, tronAddressOfAccountId(value)) : null;
    },
  };
}
