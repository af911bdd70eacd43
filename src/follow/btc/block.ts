import type { BlockInput, TransactionInput } from "../../ingest/batch-schema.ts";
import type { BtcBlock, BtcTx } from "./shape.ts";
import type { ReadBlock } from "../core/chain-reader.ts";

// Pure: a checked Bitcoin-family block → the docs/chains.md block an indexer would post. No I/O.

/** One height as read from the node: the checked block, and the bytes of the answers it came in. */
export type BtcFetched = ReadBlock & { timestamp: number; genesis: boolean; transactions: BtcTx[] };

// The follower links blocks by parent hash; the genesis block has none, and this links to nothing.
const NO_PARENT = "0".repeat(64);

/** A checked block as the follower core holds it. */
export function fetchedBlock(block: BtcBlock, bytes: number): BtcFetched {
  return {
    height: block.height,
    hash: block.hash,
    parentHash: block.previousblockhash ?? NO_PARENT,
    genesis: block.previousblockhash === null,
    timestamp: block.time,
    transactions: block.transactions,
    bytes,
  };
}

/**
 * The block in the ingest shape. Value moves in outputs, not between accounts: every transaction
 * has `from` and `to` null and `value` "0", its spent outpoints as `inputs` (a coinbase's left
 * out) and its outputs as `outputs`, an output's index being its `n`: its payee, or null, and its
 * amount in satoshi.
 */
export function toBlockInput(network: string, block: BtcFetched): BlockInput {
  const transactions = block.transactions.map(
    (tx): TransactionInput => ({
      hash: tx.txid,
      from: null,
      to: null,
      value: "0",
      inputs: tx.inputs.map((i) => ({ txid: i.txid, vout: i.vout })),
      outputs: tx.outputs.map((o) => ({ address: o.address, value: o.value.toString() })),
    }),
  );
  return { network, height: block.height, hash: block.hash, parent_hash: block.genesis ? null : block.parentHash, timestamp: block.timestamp, transactions };
}
