import { sql } from "kysely";
import type { Db, Executor } from "../db/database.ts";
import { chainStatements } from "./sql/dialects.ts";

// Reads and admin moves over the stored chain of a network (docs/chains.md). A block is `canonical`,
// `orphaned` (a reorg replaced it; kept, its events marked removed) or `rewound` (set aside by
// `follow rewind`: neither canonical nor retracted until the chain is read again).

/**
 * `status = 'canonical'` as a literal: SQLite uses the partial indexes (blocks_canonical_height)
 * only when the query spells the index's condition itself, not through a bound parameter. The
 * follower's per-block reads (tip, canonical range) are hand-written statements (sql/) that spell it too.
 */
export const isCanonical = sql<boolean>`status = 'canonical'`;
export const isRewound = sql<boolean>`status = 'rewound'`;

export type StoredBlock = { hash: string; height: number; parentHash: string | null };

/** The highest canonical block of a network, or null when none is stored. */
export async function canonicalTip(db: Executor, network: string): Promise<StoredBlock | null> {
  const [row] = (await db.executeQuery(chainStatements(db).selectCanonicalTip(network))).rows;
  return row ? { hash: row.hash, height: Number(row.height), parentHash: row.parent_hash } : null;
}

/**
 * The canonical stored blocks of a network with `fromHeight <= height <= toHeight`, ascending.
 * Heights with no stored block are absent (a feed may skip heights). The follower compares these
 * with the node's hashes to find the common ancestor after a reorg.
 */
export async function canonicalBlocks(db: Executor, network: string, fromHeight: number, toHeight: number): Promise<StoredBlock[]> {
  const { rows } = await db.executeQuery(chainStatements(db).selectCanonicalBlocks(network, fromHeight, toHeight));
  return rows.map((r) => ({ hash: r.hash, height: Number(r.height), parentHash: r.parent_hash }));
}

/** canonicalBlocks as a height → hash map. */
export async function canonicalHashes(db: Executor, network: string, fromHeight: number, toHeight: number): Promise<Map<number, string>> {
  return new Map((await canonicalBlocks(db, network, fromHeight, toHeight)).map((b) => [b.height, b.hash]));
}

/** The canonical stored hash at one height, or null when none is stored there. */
export async function canonicalHashAt(db: Executor, network: string, height: number): Promise<string | null> {
  return (await canonicalHashes(db, network, height, height)).get(height) ?? null;
}

/** The lowest canonical stored block at or above `height`, or null when none is stored there or above. */
export async function lowestCanonicalFrom(db: Executor, network: string, height: number): Promise<StoredBlock | null> {
  const row = await db
    .selectFrom("blocks")
    .select(["hash", "height", "parent_hash"])
    .where("network", "=", network)
    .where(isCanonical)
    .where("height", ">=", height)
    .orderBy("height")
    .limit(1)
    .executeTakeFirst();
  return row ? { hash: row.hash, height: Number(row.height), parentHash: row.parent_hash } : null;
}

export type RewindResult = { network: string; toHeight: number; rewound: number; tip: number | null };

/**
 * `follow rewind`: sets the canonical blocks above `toHeight` aside as `rewound`, so the tip drops
 * to at most `toHeight` and the follower reads on from there. Nothing else changes: their events
 * stay listed (not removed), their deliveries stay as they are. When the chain is read again, a
 * re-sent block with the same hash becomes canonical again without new events (nothing is
 * duplicated); a different block at a rewound height orphans the rewound blocks from that height
 * up, and their events are retracted like any reorg's.
 */
export async function rewindChain(db: Db, network: string, toHeight: number): Promise<RewindResult> {
  return db.transaction().execute(async (trx) => {
    const result = await trx
      .updateTable("blocks")
      .set({ status: "rewound" })
      .where("network", "=", network)
      .where(isCanonical)
      .where("height", ">", toHeight)
      .executeTakeFirst();
    const tip = await canonicalTip(trx, network);
    return { network, toHeight, rewound: Number(result.numUpdatedRows), tip: tip?.height ?? null };
  });
}
