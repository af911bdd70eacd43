import type { Explained } from "../../lib/error-codes.ts";

// The walk back on a reorg (docs/chains.md): where the node's chain and the stored one part.

/** Hashes at a height, null where there is none: the store's and the node's. */
export type HashLookups = { storedHashAt(height: number): Promise<string | null>; nodeHashAt(height: number): Promise<string | null> };

/**
 * The newest height where the node and the store agree, from `tipHeight` down to at most
 * `maxDepth` below it; null when they disagree deeper. A height with nothing stored agrees (the
 * follower started above it: there is nothing to disagree with).
 */
export async function findCommonAncestor(hashes: HashLookups, tipHeight: number, maxDepth: number): Promise<number | null> {
  for (let h = tipHeight; h >= 0 && h >= tipHeight - maxDepth; h--) {
    const stored = await hashes.storedHashAt(h);
    if (stored === null) return h;
    if ((await hashes.nodeHashAt(h)) === stored) return h;
  }
  return null;
}

/** A node answering a chain that does not connect: shown as the follower's error, never taken for a reorg. */
export function unlinkedChain(fork: { height: number; hash: string; parentHash: string }, below: string): Explained<"UPSTREAM_MALFORMED"> {
  return {
    ok: false,
    code: "UPSTREAM_MALFORMED",
    error: `the node's blocks do not link: block ${fork.height} (${fork.hash}) names parent ${fork.parentHash}, but the node's block ${fork.height - 1} is ${below}`,
  };
}
