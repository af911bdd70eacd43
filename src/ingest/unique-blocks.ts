import type { IngestedBlock } from "../chain/block.ts";
import { type InvalidInput, invalidInput } from "../lib/error-codes.ts";
import { blockKey } from "./blocks.ts";

/**
 * Keeps the first of blocks sent twice in one batch; refuses one hash at two heights, whoever
 * built the batch (a feed, or a follower whose node named one hash at two heights). `fieldOf`
 * names a block as the batch's sender sent it.
 */
export function uniqueBlocks(blocks: readonly IngestedBlock[], fieldOf: (index: number) => string): IngestedBlock[] | InvalidInput {
  const heights = new Map<string, number>();
  const out: IngestedBlock[] = [];
  for (const [i, b] of blocks.entries()) {
    const key = blockKey(b.network, b.hash);
    const first = heights.get(key);
    if (first === undefined) {
      heights.set(key, b.height);
      out.push(b);
    } else if (first !== b.height) return invalidInput(`${fieldOf(i)}height: block ${b.hash} is at height ${first} earlier in this batch; a block's hash names one height`);
  }
  return out;
}
