import type { Executor } from "../db/database.ts";

// What the follower reads of the stored chain. The ingest service owns writing it (and, with reorg
// handling, orphaning); these are the follower's read side and the admin's rewind.

/** The stored tip of a network: its highest stored block, or null before the first block. */
export async function storedTip(db: Executor, network: string): Promise<{ height: number; hash: string } | null> {
  const row = await db
    .selectFrom("blocks")
    .select(["height", "hash"])
    .where("network", "=", network)
    .orderBy("height", "desc")
    .orderBy("created_at", "desc")
    .limit(1)
    .executeTakeFirst();
  return row ? { height: Number(row.height), hash: row.hash.toLowerCase() } : null;
}

/** The stored hash at a height (the latest stored one if several), or null when none is stored there. */
export async function storedHashAt(db: Executor, network: string, height: number): Promise<string | null> {
  const row = await db
    .selectFrom("blocks")
    .select("hash")
    .where("network", "=", network)
    .where("height", "=", height)
    .orderBy("created_at", "desc")
    .limit(1)
    .executeTakeFirst();
  return row?.hash.toLowerCase() ?? null;
}

/**
 * Forgets the stored blocks of a network above `toHeight`, so a follower reads them again from
 * the node. Events stay: their dedupe keys keep the re-read blocks from storing them twice.
 * Returns how many blocks were forgotten.
 */
export async function rewindBlocks(db: Executor, network: string, toHeight: number): Promise<number> {
  const result = await db.deleteFrom("blocks").where("network", "=", network).where("height", ">", toHeight).executeTakeFirst();
  return Number(result.numDeletedRows);
}
