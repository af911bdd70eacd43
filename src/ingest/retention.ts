import type { Db } from "../db/database.ts";
import { openOrderBlockHashes } from "../payments/orders.ts";
import { MAX_MIN_CONFIRMATIONS } from "../webhooks/filters.ts";
import { canonicalTip } from "./canonical-chain.ts";

// Heights per step: each step is one read and one delete of at most this many heights' blocks,
// so the API and ingest never wait long behind the prune (SQLite has one connection).
const WINDOW = 1000;

/** What a network needs of its stored chain. */
export type ChainNeeds = { network: string; maxReorgDepth: number; confirmations: number };

/**
 * How many blocks below the tip a network keeps however old: enough for the deepest reorg it
 * applies plus the largest confirmation threshold (the network's `confirmations`, or the largest
 * `min_confirmations` a webhook may ask for, whichever is larger).
 */
export function blocksKept(n: ChainNeeds): number {
  return n.maxReorgDepth + Math.max(n.confirmations, MAX_MIN_CONFIRMATIONS);
}

/**
 * Deletes each network's stored blocks (canonical or orphaned) more than blocksKept() below its
 * canonical tip, except those a stored event or the transfer of an open payment order names.
 * Walks up from the lowest stored height a window at a time and stops at a window where every
 * block is still named (events are pruned oldest first, so what is free lies below what is not).
 */
export async function pruneBlocks(db: Db, networks: readonly ChainNeeds[], stopping: () => boolean = () => false): Promise<number> {
  let deleted = 0;
  for (const n of networks) {
    const tip = await canonicalTip(db, n.network);
    if (!tip) continue;
    const floor = tip.height - blocksKept(n);
    let from = await lowestHeightFrom(db, n.network, Number.MIN_SAFE_INTEGER);
    while (from !== null && from < floor && !stopping()) {
      const to = Math.min(from + WINDOW, floor);
      const result = await db
        .deleteFrom("blocks")
        .where("network", "=", n.network)
        .where("height", ">=", from)
        .where("height", "<", to)
        // An event still stored names its block by (network, height, hash): the events_network_block index.
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom("events")
                .select("events.seq")
                .whereRef("events.network", "=", "blocks.network")
                .whereRef("events.block_height", "=", "blocks.height")
                .whereRef("events.block_hash", "=", "blocks.hash"),
            ),
          ),
        )
        .where("hash", "not in", openOrderBlockHashes(db, n.network))
        .executeTakeFirst();
      const freed = Number(result.numDeletedRows);
      deleted += freed;
      // `from` is a stored height, so the window held blocks: none freed means all were named.
      if (freed === 0) break;
      from = await lowestHeightFrom(db, n.network, to);
    }
  }
  return deleted;
}

/** The lowest stored height of a network at or above `from`, or null. */
async function lowestHeightFrom(db: Db, network: string, from: number): Promise<number | null> {
  const row = await db
    .selectFrom("blocks")
    .select((eb) => eb.fn.min("height").as("h"))
    .where("network", "=", network)
    .where("height", ">=", from)
    .executeTakeFirst();
  return row?.h === null || row?.h === undefined ? null : Number(row.h);
}
