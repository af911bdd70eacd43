import type { IngestedBlock, IngestedTx, TxOutput } from "../../chain/block.ts";
import { matchAddress } from "../../chain/address/normalize.ts";
import { outputPayments } from "../../chain/movements.ts";
import type { BtcBlock, BtcOutput, BtcTx } from "./shape.ts";
import type { ReadBlock } from "../core/chain-reader.ts";

// Pure: a checked Bitcoin-family block → the block the ingest takes (chain/block.ts), in matching
// form: hashes lower-case, bech32 addresses lower-case. No I/O.

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
 * The block as the ingest takes it. Value moves in outputs, not between accounts: every transaction
 * has `from` and `to` null and no native value, its outputs in `n` order (an output's index is its
 * `n`: its payee in matching form, or null, and its amount in satoshi) with what they pay each
 * address as its movements, and the outpoints it spends (a coinbase spends none). The checked
 * block's outputs and outpoints already have the ingest's shape and are taken as they are (the
 * ingest reads them, never changes them); outputs are copied only where an address is not yet in
 * matching form.
 */
export function ingestedBlockOf(network: string, block: BtcFetched): IngestedBlock {
  const transactions = block.transactions.map((tx): IngestedTx => {
    const outputs = inMatchingForm(tx.outputs);
    const out: IngestedTx = { hash: tx.txid, from: null, to: null, movements: outputPayments(outputs), outputs };
    if (tx.inputs.length > 0) out.spends = tx.inputs;
    return out;
  });
  return { network, height: block.height, hash: block.hash, parentHash: block.genesis ? null : block.parentHash, timestamp: block.timestamp, transactions };
}

/** The outputs with each address as watches keep it (a node may spell a bech32 address in capitals: lower-case); the same array when none changes. */
function inMatchingForm(outputs: readonly BtcOutput[]): readonly TxOutput[] {
  for (let i = 0; i < outputs.length; i++) {
    const address = outputs[i].address;
    if (matchAddress("btc", address) !== address) return outputs.map((o) => ({ vout: o.vout, address: matchAddress("btc", o.address), value: o.value }));
  }
  return outputs;
}
