// The block model every stage after the feed works on: ingest stores it, the matcher and the
// payment observer read it. Built from a validated feed block by toIngestedBlock
// (ingest/block-from-feed.ts); pure data, no imports, so any stage can depend on it.

/** The non-fungible token standards an EVM follower reads (ERC-721 `Transfer`, ERC-1155 `TransferSingle`/`TransferBatch`). */
export type NftStandard = "erc721" | "erc1155";

/** Which token of an NFT contract moved: its standard and its id (uint256). */
export type NftToken = { standard: NftStandard; tokenId: bigint };

/**
 * One value moved by a transaction: index 0 = the native value (present only when > 0),
 * i+1 = transfers[i]. On UTXO chains: n+1 = what the outputs from vout n on pay one address (its
 * first output is n), −(i+1) = what the inputs from input i on spend of one address's outputs.
 * Addresses and asset in matching form (matchAddress). `nft` is set on a non-fungible token's
 * move (its `value` is the number of tokens of that id, `decimals` 0); `internal` on native value
 * moved by a call inside a contract's execution rather than by the transaction itself. Both are
 * absent otherwise, so the common movement keeps one shape.
 */
export type Movement = {
  index: number;
  asset: string | null;
  from: string | null;
  to: string | null;
  value: bigint;
  decimals: number | null;
  nft?: NftToken;
  internal?: true;
};

/** An output of a UTXO transaction: its index in the transaction, who it pays (matching form) and how much. */
export type TxOutput = { vout: number; address: string | null; value: bigint };

/** A UTXO transaction not yet in a block, as a node's mempool holds it: its id and what its outputs pay (matching form). */
export type MempoolTx = { txid: string; outputs: { address: string | null; value: bigint }[] };

/** An outpoint a UTXO transaction spends. */
export type Outpoint = { txid: string; vout: number };

/**
 * A transaction in matching form: its sender and recipient, and every value it moved. A UTXO
 * transaction also lists its `outputs` and the outpoints it `spends`; the payments of its outputs
 * are movements from the start, its spends become movements once the ingest has looked up which
 * of them paid a watched address (ingest/spent-outputs.ts).
 */
export type IngestedTx = { hash: string; from: string | null; to: string | null; movements: Movement[]; outputs?: readonly TxOutput[]; spends?: readonly Outpoint[] };

/** A block in matching form: addresses normalized, values as bigint. */
export type IngestedBlock = {
  network: string;
  height: number;
  hash: string;
  parentHash: string | null;
  timestamp: number | null;
  transactions: IngestedTx[];
};
