import type { Transaction } from "kysely";
import type { IngestedBlock } from "../chain/block.ts";
import type { DB } from "../db/schema.ts";
import type { InvalidInput } from "../lib/error-codes.ts";
import type { ChainRefusal, Reorg } from "./reorg.ts";

// Ingest as its feeds see it: the chain followers build blocks in the model every stage reads
// (chain/block.ts) and hand them to `ingestBlocks`; POST /ingest/blocks and `chainwatch ingest`
// first parse and check the feed's JSON into the same blocks (block-from-feed.ts). One pipeline
// behind both, built by `serve` or the CLI (pipeline.ts).

/** `reorgs` lists the reorgs the batch applied; a refusal carries a code (INVALID_INPUT, or a ChainRefusal's) the follower can act on. */
export type IngestResult = { ok: true; blocks: number; events: number; reorgs: Reorg[] } | InvalidInput | ({ ok: false } & ChainRefusal);

/**
 * How a feed may condition its batch: `fence` runs first inside the batch's write transaction and
 * throws to refuse the whole batch (a follower checks there that it still leads; db/leadership.ts).
 * `fieldOf` names block `index` of the batch as its sender sent it, for a refusal that names a
 * field (`[2].` in an array, nothing for a body of one block); by its position when absent.
 */
export type IngestOptions = { fence?: (trx: Transaction<DB>) => Promise<void>; fieldOf?: (index: number) => string };

/** Feeds a batch of blocks, in order, into blocks, events, webhooks and payment orders. */
export type IngestService = {
  ingestBlocks(blocks: readonly IngestedBlock[], opts?: IngestOptions): Promise<IngestResult>;
  /**
   * An upstream quorum returned `hash` at `height` (follow/core/quorum.ts): when that is still the
   * stored block there, the network's quorum height rises to it and what it confirms moves (held
   * deliveries, payment orders, late payments), in one transaction. False when the block was replaced meanwhile.
   */
  confirmQuorum(network: string, height: number, hash: string, opts?: Pick<IngestOptions, "fence">): Promise<boolean>;
};
