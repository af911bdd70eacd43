import type { IngestedBlock } from "../../src/chain/block.ts";
import type { Family, NetworkConfig } from "../../src/config/schema.ts";
import type { BlockInput, TransactionInput } from "../../src/ingest/batch-schema.ts";
import { blocksFromFeed, toIngestedBlock } from "../../src/ingest/block-from-feed.ts";

// Blocks between the two forms the ingest knows: a feed's JSON (docs/chains.md) and the block model
// the pipeline takes (src/chain/block.ts). The daemon only ever goes from the first to the second;
// tests go both ways, to state what a follower builds in the words of the feed shape.

/**
 * The feed block that stands for `block`: the native value (movement 0) as `value`, the other
 * movements of an account transaction as `transfers` (an NFT's with its `token_standard` and
 * `token_id`, native value moved inside a contract's execution with `internal`), a UTXO transaction's `outputs` and spends as
 * `inputs`. Throws unless the feed's path makes exactly `block` of it again, so a test that reads a
 * follower's block through here also proves the follower built what the feed's path would have.
 */
export function feedBlockOf(block: IngestedBlock, family: Family): BlockInput {
  const transactions = block.transactions.map((tx): TransactionInput => {
    const native = tx.movements.find((m) => m.index === 0);
    const out: TransactionInput = { hash: tx.hash, from: tx.from, to: tx.to, value: (native?.value ?? 0n).toString() };
    if (tx.outputs) {
      out.inputs = (tx.spends ?? []).map((s) => ({ txid: s.txid, vout: s.vout }));
      out.outputs = tx.outputs.map((o) => ({ address: o.address, value: o.value.toString() }));
      return out;
    }
    const transfers = tx.movements
      .filter((m) => m.index > 0)
      .map((m) => ({
        asset: m.asset,
        from: m.from,
        to: m.to,
        value: m.value.toString(),
        decimals: m.decimals,
        ...(m.nft ? { token_standard: m.nft.standard, token_id: m.nft.tokenId.toString() } : {}),
        ...(m.internal ? { internal: true } : {}),
      }));
    if (transfers.length > 0) out.transfers = transfers;
    return out;
  });
  const feed: BlockInput = { network: block.network, height: block.height, hash: block.hash, parent_hash: block.parentHash, timestamp: block.timestamp, transactions };
  const again = toIngestedBlock(feed, family);
  if (!Bun.deepEquals(again, block, true)) throw new Error(`the feed's path makes another block of ${JSON.stringify(feed)}: ${JSON.stringify(again, (_k, v) => (typeof v === "bigint" ? `${v}n` : v))}`);
  return feed;
}

/** A feed batch (one block or an array) as the blocks the pipeline takes; throws when the feed's checks refuse it. */
export function blocksOfFeed(raw: unknown, networks: Record<string, NetworkConfig>): IngestedBlock[] {
  const batch = blocksFromFeed(raw, networks);
  if (!batch.ok) throw new Error(batch.error);
  return batch.blocks;
}
