// The block model every stage after the feed works on: ingest stores it, the matcher and the
// payment observer read it. Built from a validated feed block by toIngestedBlock
// (ingest/block-from-feed.ts); pure data, no imports, so any stage can depend on it.

/**
 * One value moved by a transaction: index 0 = the native value (present only when > 0),
 * i+1 = transfers[i]. Addresses and asset in matching form (matchAddress).
 */
export type Movement = { index: number; asset: string | null; from: string | null; to: string | null; value: bigint; decimals: number | null };

/** A transaction in matching form: its sender and recipient, and every value it moved. */
export type IngestedTx = { hash: string; from: string | null; to: string | null; movements: Movement[] };

/** A block in matching form: addresses normalized, values as bigint. */
export type IngestedBlock = {
  network: string;
  height: number;
  hash: string;
  parentHash: string | null;
  timestamp: number | null;
  transactions: IngestedTx[];
};
