import type { IngestedBlock, Movement } from "../chain/block.ts";
import type { Family } from "../config/schema.ts";
import { parseRawInteger } from "../lib/amount.ts";
import { matchAddress } from "../watch/address.ts";
import type { BlockInput, TransactionInput } from "./batch-schema.ts";

// The first step after validation: a feed block (docs/reference.md §4 shape) becomes the block model.

/**
 * The movements of a transaction: index 0 is the native value, i+1 is transfers[i]. A zero native
 * value is no movement (a plain contract call moves nothing); a zero-value transfer is one, and
 * gives `other` hits. The schema has already checked every value is an integer string.
 */
export function movementsOf(tx: TransactionInput, family: Family): Movement[] {
  const movements: Movement[] = [];
  const value = parseRawInteger(tx.value) ?? 0n;
  if (value > 0n) {
    movements.push({ index: 0, asset: null, from: matchAddress(family, tx.from), to: matchAddress(family, tx.to), value, decimals: null });
  }
  tx.transfers?.forEach((t, i) => {
    movements.push({
      index: i + 1,
      asset: matchAddress(family, t.asset),
      from: matchAddress(family, t.from),
      to: matchAddress(family, t.to),
      value: parseRawInteger(t.value) ?? 0n,
      decimals: t.decimals ?? null,
    });
  });
  return movements;
}

/** A validated block in matching form: addresses normalized, values as bigint. */
export function toIngestedBlock(b: BlockInput, family: Family): IngestedBlock {
  return {
    network: b.network,
    height: b.height,
    hash: b.hash,
    parentHash: b.parent_hash ?? null,
    timestamp: b.timestamp ?? null,
    transactions: b.transactions.map((tx) => ({
      hash: tx.hash,
      from: matchAddress(family, tx.from),
      to: matchAddress(family, tx.to),
      movements: movementsOf(tx, family),
    })),
  };
}
