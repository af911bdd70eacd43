import type { RawBuilder, Transaction } from "kysely";
import type { BlockStatus, DB } from "../db/schema.ts";
import { blockKey, insertBlocks } from "./blocks.ts";
import { canonicalTip, isCanonical, isRewound, type StoredBlock } from "./canonical-chain.ts";
import type { IngestedBlock } from "../chain/block.ts";
import type { BlockRef } from "../chain/chain-change.ts";

// How a batch changes the stored chain (docs/chains.md), for POST /ingest/blocks and the follower
// alike. Blocks are taken in batch order, each against the chain as the earlier ones left it:
//  - a stored canonical block is a duplicate and adds nothing;
//  - a hash already stored at another height is refused: a block's hash names one height;
//  - a block whose parent_hash is not the canonical block at height − 1 is refused: the common
//    ancestor lies below what the batch shows, so the new chain must be sent from there, parents
//    first (the follower walks back with canonicalBlocks before it feeds);
//  - a new hash at a canonical height, or a block that is not the parent of the canonical block
//    above it, is a reorg: the canonical blocks from that height up become orphaned. More than
//    the network's max_reorg_depth of them refuses the whole batch;
//  - a re-sent orphaned block becomes canonical again and is processed like a new block (its old
//    events stay removed, new events are made); a re-sent rewound block becomes canonical again
//    with the events it already has;
//  - rewound blocks that disagree with what comes back are orphaned, with no depth limit (an
//    admin asked for the re-read).

/** A reorg applied by a batch: `depth` canonical heights from `fromHeight` up were replaced. */
export type Reorg = { network: string; depth: number; fromHeight: number };

/** Why a batch was refused; nothing of it is stored. */
export type ChainRefusal =
  | { code: "REORG_TOO_DEEP"; network: string; depth: number; maxDepth: number; error: string }
  | { code: "PARENT_MISMATCH"; network: string; height: number; error: string }
  | { code: "BLOCK_HEIGHT_MISMATCH"; network: string; height: number; error: string };

/** Thrown inside the ingest transaction to roll the whole batch back; caught by the ingest service. */
export class ChainRefused extends Error {
  constructor(readonly refusal: ChainRefusal) {
    super(refusal.error);
  }
}

export type ChainUpdate = {
  /** Blocks that became canonical and need events: stored for the first time, or re-sent after being orphaned. Batch order. */
  fresh: IngestedBlock[];
  /** Rewound blocks re-sent with the same hash: canonical again, events already stored. */
  reattached: number;
  /** Blocks the batch orphaned whose events were already out: to retract. */
  orphaned: BlockRef[];
  reorgs: Reorg[];
};

type Made = { block: IngestedBlock; how: "inserted" | "revived" | "reattached" };
type NetworkState = { tip: StoredBlock | null; hasRewound: boolean };

/**
 * Applies a batch's blocks to the stored chain inside the ingest transaction; throws ChainRefused
 * (the caller rolls back) for a disconnected block or a reorg deeper than `maxReorgDepth`.
 * Appending above the tip, the common case, costs no query per block.
 */
export async function applyChain(
  trx: Transaction<DB>,
  blocks: readonly IngestedBlock[],
  opts: { maxReorgDepth: (network: string) => number; nowMs: number },
): Promise<ChainUpdate> {
  const stored = await storedBlocks(trx, blocks);
  const networks = new Map<string, NetworkState>();
  const made = new Map<string, Made>();
  const orphaned: BlockRef[] = [];
  const reorgs: Reorg[] = [];
  let pending: IngestedBlock[] = [];
  // Inserts wait to go out as one multi-row statement; anything that reads the chain flushes first.
  const flush = async () => {
    if (pending.length > 0) await insertBlocks(trx, pending, opts.nowMs);
    pending = [];
  };
  const stateOf = async (network: string) => {
    let state = networks.get(network);
    if (!state) {
      state = { tip: await canonicalTip(trx, network), hasRewound: await hasRewound(trx, network) };
      networks.set(network, state);
    }
    return state;
  };
  /** Orphans the blocks of one status from `fromHeight` up; those made canonical by this batch just drop out of it. */
  const orphanFrom = async (network: string, fromHeight: number, which: RawBuilder<boolean>) => {
    const rows = await trx
      .updateTable("blocks")
      .set({ status: "orphaned" })
      .where("network", "=", network)
      .where(which)
      .where("height", ">=", fromHeight)
      .returning(["hash", "height"])
      .execute();
    for (const r of rows) {
      const key = blockKey(network, r.hash);
      stored.set(key, { status: "orphaned", height: Number(r.height) });
      const m = made.get(key);
      made.delete(key);
      // Inserted or revived in this batch: no event of it exists yet, there is nothing to retract.
      if (m && m.how !== "reattached") continue;
      orphaned.push({ network, hash: r.hash, height: Number(r.height) });
    }
  };

  for (const b of blocks) {
    const key = blockKey(b.network, b.hash);
    const known = stored.get(key);
    if (known && known.height !== b.height) throw new ChainRefused(heightMismatch(b, known.height));
    if (known?.status === "canonical") continue;
    const net = await stateOf(b.network);
    let from: number | null = null;
    if (net.tip === null || b.height > net.tip.height) {
      if (net.tip !== null && b.height === net.tip.height + 1) checkParent(b, net.tip);
    } else {
      await flush();
      const around = await canonicalAround(trx, b.network, b.height);
      const below = around.get(b.height - 1);
      const at = around.get(b.height);
      const above = around.get(b.height + 1);
      if (below) checkParent(b, below);
      if (at) from = b.height;
      else if (above && above.parentHash !== null && above.parentHash !== b.hash) from = b.height + 1;
    }
    if (from !== null && net.tip !== null) {
      const depth = net.tip.height - from + 1;
      const maxDepth = opts.maxReorgDepth(b.network);
      if (depth > maxDepth) throw new ChainRefused(tooDeep(b, net.tip.height, from, depth, maxDepth));
      await orphanFrom(b.network, from, isCanonical);
      reorgs.push({ network: b.network, depth, fromHeight: from });
    }
    if (net.hasRewound) {
      await flush();
      const stale = await staleRewoundFrom(trx, b);
      if (stale !== null) {
        await orphanFrom(b.network, stale, isRewound);
        net.hasRewound = await hasRewound(trx, b.network);
      }
    }

    // Read again: orphaning stale rewound blocks may just have orphaned this one.
    const current = stored.get(key)?.status;
    if (current === undefined) {
      pending.push(b);
      made.set(key, { block: b, how: "inserted" });
    } else {
      await flush();
      await trx.updateTable("blocks").set({ status: "canonical" }).where("network", "=", b.network).where("hash", "=", b.hash).execute();
      made.set(key, { block: b, how: current === "orphaned" ? "revived" : "reattached" });
    }
    stored.set(key, { status: "canonical", height: b.height });
    if (from !== null || net.tip === null || b.height > net.tip.height) net.tip = { hash: b.hash, height: b.height, parentHash: b.parentHash };
  }
  await flush();

  const all = [...made.values()];
  return {
    fresh: all.filter((m) => m.how !== "reattached").map((m) => m.block),
    reattached: all.filter((m) => m.how === "reattached").length,
    orphaned,
    reorgs,
  };
}

/** A block must name the canonical block below it as its parent (when it names one). */
function checkParent(b: IngestedBlock, below: StoredBlock): void {
  if (b.parentHash === null || b.parentHash === below.hash) return;
  throw new ChainRefused({
    code: "PARENT_MISMATCH",
    network: b.network,
    height: b.height,
    error:
      `Block ${b.hash} at height ${b.height} on ${b.network} does not connect: its parent_hash ${b.parentHash} is not the stored ` +
      `block ${below.hash} at height ${below.height}. Send the new chain from the common ancestor up, parents first.`,
  });
}

function heightMismatch(b: IngestedBlock, storedAt: number): ChainRefusal {
  return {
    code: "BLOCK_HEIGHT_MISMATCH",
    network: b.network,
    height: b.height,
    error: `Block ${b.hash} on ${b.network} is stored at height ${storedAt}, not ${b.height}: a block's hash names one height. Nothing was stored.`,
  };
}

function tooDeep(b: IngestedBlock, tip: number, from: number, depth: number, maxDepth: number): ChainRefusal {
  return {
    code: "REORG_TOO_DEEP",
    network: b.network,
    depth,
    maxDepth,
    error:
      `Reorg too deep on ${b.network}: block ${b.hash} at height ${b.height} would replace ${depth} stored blocks ` +
      `(heights ${from}..${tip}), more than max_reorg_depth ${maxDepth}. Nothing was stored; see \`chainwatch follow rewind\`.`,
  };
}

/** The status and height of each block of the batch that is already stored, by blockKey. */
async function storedBlocks(trx: Transaction<DB>, blocks: readonly IngestedBlock[]): Promise<Map<string, { status: BlockStatus; height: number }>> {
  const byNetwork = new Map<string, string[]>();
  for (const b of blocks) {
    const list = byNetwork.get(b.network);
    if (list) list.push(b.hash);
    else byNetwork.set(b.network, [b.hash]);
  }
  const stored = new Map<string, { status: BlockStatus; height: number }>();
  for (const [network, hashes] of byNetwork) {
    for (let i = 0; i < hashes.length; i += 500) {
      const rows = await trx
        .selectFrom("blocks")
        .select(["hash", "status", "height"])
        .where("network", "=", network)
        .where("hash", "in", hashes.slice(i, i + 500))
        .execute();
      for (const r of rows) stored.set(blockKey(network, r.hash), { status: r.status, height: Number(r.height) });
    }
  }
  return stored;
}

/** The canonical blocks at height − 1, height and height + 1. */
async function canonicalAround(trx: Transaction<DB>, network: string, height: number): Promise<Map<number, StoredBlock>> {
  const rows = await trx
    .selectFrom("blocks")
    .select(["hash", "height", "parent_hash"])
    .where("network", "=", network)
    .where(isCanonical)
    .where("height", ">=", height - 1)
    .where("height", "<=", height + 1)
    .execute();
  return new Map(rows.map((r) => [Number(r.height), { hash: r.hash, height: Number(r.height), parentHash: r.parent_hash }]));
}

async function hasRewound(trx: Transaction<DB>, network: string): Promise<boolean> {
  const row = await trx.selectFrom("blocks").select("height").where("network", "=", network).where(isRewound).limit(1).executeTakeFirst();
  return row !== undefined;
}

/**
 * The lowest height from which the rewound blocks contradict block `b` (a different block at its
 * height, a different parent below it, a child above it that does not name it), or null.
 */
async function staleRewoundFrom(trx: Transaction<DB>, b: IngestedBlock): Promise<number | null> {
  const rows = await trx
    .selectFrom("blocks")
    .select(["hash", "height", "parent_hash"])
    .where("network", "=", b.network)
    .where(isRewound)
    .where("height", ">=", b.height - 1)
    .where("height", "<=", b.height + 1)
    .execute();
  const at = new Map(rows.map((r) => [Number(r.height), r]));
  const below = at.get(b.height - 1);
  if (below && b.parentHash !== null && below.hash !== b.parentHash) return b.height - 1;
  const same = at.get(b.height);
  if (same && same.hash !== b.hash) return b.height;
  const above = at.get(b.height + 1);
  if (above && above.parent_hash !== null && above.parent_hash !== b.hash) return b.height + 1;
  return null;
}
