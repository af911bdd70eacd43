import type { IngestedBlock } from "./block.ts";

// What one ingest batch did to the stored chain, as the stages after it see it: the events stage
// retracts what orphaned blocks stored, payment orders count the canonical chain only.

/** A stored block: its network, hash and height. */
export type BlockRef = { network: string; hash: string; height: number };

/**
 * A batch's change to the canonical chain: `blocks` it made canonical that need their events and
 * transfers (stored for the first time, or revived after an orphaning), in batch order; stored
 * blocks it `orphaned` whose events were already out; and `tips`, each batch network's highest
 * canonical height afterwards.
 */
export type ChainChange = { blocks: IngestedBlock[]; orphaned: BlockRef[]; tips: ReadonlyMap<string, number> };

/** Orphaned blocks of one network: their hashes, and their heights in slices for IN (…) lists. */
export type OrphanedOnNetwork = { network: string; hashes: Set<string>; heightSlices: number[][] };

/** Heights per IN (…) list, far below SQLite's bound-parameter cap. */
const HEIGHTS_PER_LIST = 500;

/** Groups orphaned blocks by network, for the steps that undo what those blocks stored. */
export function orphanedByNetwork(orphaned: readonly BlockRef[]): OrphanedOnNetwork[] {
  const byNetwork = new Map<string, BlockRef[]>();
  for (const b of orphaned) {
    const list = byNetwork.get(b.network);
    if (list) list.push(b);
    else byNetwork.set(b.network, [b]);
  }
  return [...byNetwork].map(([network, blocks]) => {
    const heights = [...new Set(blocks.map((b) => b.height))];
    const heightSlices: number[][] = [];
    for (let i = 0; i < heights.length; i += HEIGHTS_PER_LIST) heightSlices.push(heights.slice(i, i + HEIGHTS_PER_LIST));
    return { network, hashes: new Set(blocks.map((b) => b.hash)), heightSlices };
  });
}
