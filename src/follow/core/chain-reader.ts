import type { Transaction } from "kysely";
import type { IngestedBlock } from "../../chain/block.ts";
import type { DB } from "../../db/schema.ts";

/** One height as a reader read it: what the follower core needs to order, link and bound it. */
export type ReadBlock = {
  height: number;
  hash: string;
  parentHash: string;
  /** Bytes of the node's answers it came in: the core bounds its read-ahead by them. */
  bytes: number;
};

/**
 * What the follower core (chain-follower.ts) needs of a chain family: how to read its node, and
 * what a block read is in the block model the ingest takes. One reader per followed network; every
 * answer it hands on has been shape-checked (a malformed one throws MalformedUpstreamData).
 */
export type ChainReader<B extends ReadBlock = ReadBlock> = {
  /** The node's newest height. */
  head(): Promise<number>;
  /** The node's block hash at a height (in the form the store keeps), or null when it has none there. */
  hashAt(height: number): Promise<string | null>;
  /**
   * The block at a height, ready to ingest, or null when the node has no block there yet. A family
   * that reads a block in one last request calls `answered` when the node has answered it (before
   * the answer is read and checked): the follower then starts its next read at once.
   */
  read(height: number, answered?: () => void): Promise<B | null>;
  /**
   * The block as the ingest takes it (chain/block.ts): hashes and addresses in matching form,
   * values as bigint, exactly what the feed's path makes of the same block. Pure.
   */
  toBlock(block: B): IngestedBlock;
  /** Called before a reorg is believed: another chain behind the same upstream looks like one. */
  recheckChain?(): void;
  /**
   * Called after each poll that found the node's head already stored, while this daemon leads: a
   * family's look at what is not yet in a block (the btc family's mempool, for payment orders).
   * Its writes run `fence` first in their transaction, as the follower's own writes do.
   */
  atHead?(fence: (trx: Transaction<DB>) => Promise<void>): Promise<void>;
};
