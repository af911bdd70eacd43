import type { Db, Executor } from "../../db/database.ts";
import { canonicalHashAt, canonicalTip, lowestCanonicalFrom, rewindChain } from "../../ingest/canonical-chain.ts";

// What the follower reads of the stored chain: the canonical chain the ingest service keeps
// (src/ingest/canonical-chain.ts). Hashes come back lower-case, as the follower compares them.

/** The stored tip of a network: its highest canonical block, or null before the first block. */
export async function storedTip(db: Executor, network: string): Promise<{ height: number; hash: string } | null> {
  const tip = await canonicalTip(db, network);
  return tip ? { height: tip.height, hash: tip.hash.toLowerCase() } : null;
}

/** The canonical stored hash at a height, or null when none is stored there. */
export async function storedHashAt(db: Executor, network: string, height: number): Promise<string | null> {
  return (await canonicalHashAt(db, network, height))?.toLowerCase() ?? null;
}

/** The lowest canonical stored block at or above a height, or null when none is stored there or above. */
export async function storedBlockFrom(db: Executor, network: string, height: number): Promise<{ height: number; hash: string } | null> {
  const block = await lowestCanonicalFrom(db, network, height);
  return block ? { height: block.height, hash: block.hash.toLowerCase() } : null;
}

/**
 * `follow rewind`: sets the canonical blocks above `toHeight` aside (rewindChain), so a follower
 * reads them again from the node; events already stored are not duplicated. Returns how many.
 */
export async function rewindBlocks(db: Db, network: string, toHeight: number): Promise<number> {
  return (await rewindChain(db, network, toHeight)).rewound;
}
