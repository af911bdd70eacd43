import type { Executor } from "../db/database.ts";
import type { IngestedBlock } from "../chain/block.ts";
import { isCanonical } from "./canonical-chain.ts";


// Rows per multi-row statement: 500 × 7 columns stays far below SQLite's bound-parameter cap.
const CHUNK = 500;

/** Identifies a block across networks. */
export const blockKey = (network: string, hash: string) => `${network}\u0000${hash}`;

/** Stores new blocks (callers have filtered out stored ones). */
export async function insertBlocks(trx: Executor, blocks: readonly IngestedBlock[], nowMs: number): Promise<void> {
  for (let i = 0; i < blocks.length; i += CHUNK) {
    await trx
      .insertInto("blocks")
      .values(
        blocks.slice(i, i + CHUNK).map((b) => ({
          network: b.network,
          hash: b.hash,
          height: b.height,
          parent_hash: b.parentHash,
          timestamp: b.timestamp,
          tx_count: b.transactions.length,
          created_at: nowMs,
        })),
      )
      .execute();
  }
}

/**
 * The tip (highest canonical stored height) of each network that has one; confirmations of a
 * block = tip − height + 1. One indexed max() per network (the partial canonical index).
 */
export async function networkTips(db: Executor, networks: Iterable<string>): Promise<Map<string, number>> {
  const tips = new Map<string, number>();
  for (const network of new Set(networks)) {
    const row = await db
      .selectFrom("blocks")
      .select((eb) => eb.fn.max("height").as("tip"))
      .where("network", "=", network)
      .where(isCanonical)
      .executeTakeFirst();
    if (row?.tip !== null && row?.tip !== undefined) tips.set(network, Number(row.tip));
  }
  return tips;
}
