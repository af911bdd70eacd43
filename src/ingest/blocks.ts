import type { Executor } from "../db/database.ts";
import type { IngestedBlock } from "../chain/block.ts";
import { chainStatements } from "./sql/dialects.ts";


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
 * block = tip − height + 1. One indexed read of the highest canonical block per network (the
 * partial canonical index), hand-written (sql/): every checkout page view reads a tip.
 */
export async function networkTips(db: Executor, networks: Iterable<string>): Promise<Map<string, number>> {
  const tips = new Map<string, number>();
  const statements = chainStatements(db);
  for (const network of new Set(networks)) {
    const { rows } = await db.executeQuery(statements.selectCanonicalTip(network));
    if (rows.length > 0) tips.set(network, Number(rows[0].height));
  }
  return tips;
}
