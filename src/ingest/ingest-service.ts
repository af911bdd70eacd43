import type { Transaction } from "kysely";
import { addUsage } from "../billing/usage.ts";
import type { IngestedBlock } from "../chain/block.ts";
import { findNetwork, unknownNetwork } from "../config/networks.ts";
import type { Config } from "../config/schema.ts";
import type { Db } from "../db/database.ts";
import { serialize } from "../db/primitives.ts";
import type { DB } from "../db/schema.ts";
import { enqueueDelivery, releaseHeldDeliveries } from "../delivery/outbox.ts";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/log.ts";
import { rfc3339 } from "../lib/time.ts";
import { syncSubscriptions } from "../watch/block-subscriptions.ts";
import { holdUntilHeight } from "../watch/confirmations.ts";
import { existingDedupeKeys, insertEvents, nextEventSeq } from "../watch/events.ts";
import { watchersOf, watchesByAddress } from "../watch/watchers.ts";
import { parseBatch } from "./batch-schema.ts";
import { toIngestedBlock } from "./block-from-feed.ts";
import { blockKey, networkTips } from "./blocks.ts";
import { heightJumpError } from "./height-jump.ts";
import { type InvalidInput, invalidInput } from "../lib/error-codes.ts";
import { type NetworkView, type PlannedEvent, planEvents } from "./plan-events.ts";
import { applyChain, type BlockRef, type ChainRefusal, ChainRefused, type Reorg } from "./reorg.ts";
import { retractOrphaned } from "./retraction.ts";

/**
 * Runs inside the batch's write transaction, after blocks/events/outbox rows are written. `blocks` = only those that became
 * canonical with new events (ingest/reorg.ts); `orphaned` = stored blocks this batch orphaned; `tips` = network → highest
 * canonical height after this batch (covers every network in the batch).
 */
export type IngestObserver = (
  trx: Transaction<DB>,
  batch: { blocks: IngestedBlock[]; orphaned: BlockRef[]; tips: Map<string, number>; nowMs: number },
) => Promise<void>;
/** `reorgs` lists the reorgs the batch applied; a refusal carries a code (INVALID_INPUT, or a ChainRefusal's) the follower can act on. */
export type IngestResult = { ok: true; blocks: number; events: number; reorgs: Reorg[] } | InvalidInput | ({ ok: false } & ChainRefusal);
/** Feeds a block batch (POST /ingest/blocks, `chainwatch ingest`) into blocks, events, webhooks and observers. */
export type IngestService = { ingest(raw: unknown): Promise<IngestResult> };

export type IngestDeps = {
  db: Db;
  clock: Clock;
  config: Config;
  observers: IngestObserver[];
  onCommitted: () => void;
  log: Logger;
  /** Counts reorgs (chainwatch_reorgs_total, chainwatch_deep_reorgs_total) when given. */
  metrics?: { inc(name: string, labels?: Record<string, string | number>): void };
};

/**
 * Validates a batch, then in one write transaction stores the new blocks, their events, the
 * webhook outbox rows, the usage counts and whatever the observers write; wakes delivery after
 * commit. Invalid input stores nothing. Re-sent blocks (same network + hash) add nothing.
 * `events` in the result counts events as the accounts see them: a block event once per account.
 */
export function createIngestService(deps: IngestDeps): IngestService {
  return {
    async ingest(raw) {
      const parsed = parseBatch(raw);
      if (!parsed.ok) return invalidInput(parsed.error);
      const unknown = parsed.blocks.find((b) => !findNetwork(deps.config.networks, b.network));
      if (unknown) return invalidInput(unknownNetwork(unknown.network));
      const blocks = uniqueBlocks(parsed.blocks.map((b) => toIngestedBlock(b, deps.config.networks[b.network].family)));
      const placed = parsed.blocks.map((b, i) => ({ network: b.network, height: b.height, field: Array.isArray(raw) ? `[${i}].` : "" }));
      // Reads first: the write transaction holds SQLite's single writer lock, keep it short.
      const views = new Map<string, NetworkView>();
      for (const network of new Set(blocks.map((b) => b.network))) views.set(network, await readNetwork(deps, network, blocks));
      const nowMs = deps.clock.now();
      let result: BatchWritten | { jump: string };
      try {
        result = await deps.db.transaction().execute(async (trx) => {
          // Batches write one at a time (SQLite's writer lock; an advisory lock on PostgreSQL): event
          // seq is max + 1, so commit order must be seq order, and payments must not move under
          // expiry. Taken first, so the tips below are not moved by another batch before this commits.
          await serialize(trx, "ingest");
          // Against the tips inside the transaction, before any write: a refused batch stores nothing.
          const jump = heightJumpError(placed, await networkTips(trx, placed.map((b) => b.network)), deps.config.ingest.max_height_jump);
          return jump ? { jump } : writeBatch(trx, deps, blocks, views, nowMs);
        });
      } catch (e) {
        if (!(e instanceof ChainRefused)) throw e;
        return refused(deps, e.refusal);
      }
      if ("jump" in result) return invalidInput(result.jump);
      if (result.changed) deps.onCommitted();
      logIngest(deps.log, blocks, result);
      for (const r of result.reorgs) {
        deps.metrics?.inc("chainwatch_reorgs_total", { network: r.network });
        deps.log.warn("reorg", { network: r.network, depth: r.depth, from_height: r.fromHeight });
      }
      return { ok: true, blocks: result.blocks, events: result.events, reorgs: result.reorgs };
    },
  };
}

/** One line a batch: info when it stored something, debug when every block was already known. */
function logIngest(log: Logger, blocks: IngestedBlock[], result: { blocks: number; events: number }): void {
  // A loop, not Math.min(...): a batch can hold more blocks than a call takes arguments.
  let low = Number.POSITIVE_INFINITY;
  let high = Number.NEGATIVE_INFINITY;
  for (const b of blocks) {
    low = Math.min(low, b.height);
    high = Math.max(high, b.height);
  }
  const fields = {
    networks: [...new Set(blocks.map((b) => b.network))],
    received: blocks.length,
    blocks: result.blocks,
    events: result.events,
    ...(blocks.length > 0 ? { from_height: low, to_height: high } : {}),
  };
  if (result.blocks > 0) log.info("ingested", fields);
  else log.debug("ingested nothing new", fields);
}

/** A refused batch (rolled back): a too-deep reorg is an error worth an operator's attention, and counted. */
function refused(deps: IngestDeps, refusal: ChainRefusal): IngestResult {
  if (refusal.code === "REORG_TOO_DEEP") {
    deps.metrics?.inc("chainwatch_deep_reorgs_total", { network: refusal.network });
    deps.log.error("reorg deeper than max_reorg_depth refused", { network: refusal.network, depth: refusal.depth, max_reorg_depth: refusal.maxDepth });
  }
  return { ok: false, ...refusal };
}

type BatchWritten = { blocks: number; events: number; reorgs: Reorg[]; changed: boolean };

/** Keeps the first of blocks sent twice in one batch. */
function uniqueBlocks(blocks: IngestedBlock[]): IngestedBlock[] {
  const seen = new Set<string>();
  return blocks.filter((b) => {
    const key = blockKey(b.network, b.hash);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The accounts watching a network and the watches of every address the batch names on it. */
async function readNetwork(deps: IngestDeps, network: string, blocks: IngestedBlock[]): Promise<NetworkView> {
  const decimals = deps.config.networks[network].decimals;
  const watchers = await watchersOf(deps.db, network);
  // Nobody watches this network: no address can match, skip the lookups.
  if (watchers.length === 0) return { decimals, watchers, watches: new Map() };
  const addresses = new Set<string>();
  for (const b of blocks) {
    if (b.network !== network) continue;
    for (const tx of b.transactions) {
      if (tx.from !== null) addresses.add(tx.from);
      if (tx.to !== null) addresses.add(tx.to);
      for (const m of tx.movements) {
        if (m.from !== null) addresses.add(m.from);
        if (m.to !== null) addresses.add(m.to);
      }
    }
  }
  return { decimals, watchers, watches: await watchesByAddress(deps.db, network, addresses) };
}

async function writeBatch(
  trx: Transaction<DB>,
  deps: IngestDeps,
  blocks: IngestedBlock[],
  views: Map<string, NetworkView>,
  nowMs: number,
): Promise<BatchWritten> {
  // Inside the transaction, so two concurrent batches never store one block twice; reorgs orphan here.
  const chain = await applyChain(trx, blocks, { maxReorgDepth: (n) => deps.config.networks[n].max_reorg_depth, nowMs });
  const { fresh, orphaned, reorgs } = chain;
  const blocksChanged = fresh.length + chain.reattached;
  if (blocksChanged === 0 && orphaned.length === 0) return { blocks: 0, events: 0, reorgs, changed: false };
  await retractOrphaned(trx, orphaned, nowMs);
  const tips = await networkTips(trx, blocks.map((b) => b.network));

  // The batch's block events go to the accounts watching now; they all get seq >= firstSeq.
  const firstSeq = await nextEventSeq(trx);
  for (const network of new Set(fresh.map((b) => b.network))) {
    await syncSubscriptions(trx, network, (views.get(network) as NetworkView).watchers.map((w) => w.accountId), firstSeq);
  }

  const createdAt = rfc3339(nowMs);
  const planned: PlannedEvent[] = [];
  for (const block of fresh) {
    const view = views.get(block.network) as NetworkView;
    if (view.watchers.length === 0) continue;
    planned.push(...planEvents(block, view, createdAt, nowMs));
  }

  // A transaction seen before (in another block, or twice in this batch) gives its events once.
  const walletKeys = planned.filter((p) => p.row.type !== "block").map((p) => p.row.dedupe_key);
  const taken = await existingDedupeKeys(trx, walletKeys);
  const events = planned.filter((p) => {
    if (taken.has(p.row.dedupe_key)) return false;
    taken.add(p.row.dedupe_key);
    return true;
  });
  await insertEvents(trx, events.map((p) => p.row));

  const minConfirmations = new Map([...views].map(([network, view]) => [network, minConfirmationsOf(view)]));
  for (const p of events) {
    const minOf = minConfirmations.get(p.row.network) as Map<string, number>;
    for (const accountId of p.deliverTo) {
      await enqueueDelivery(trx, {
        accountId,
        kind: "event",
        eventType: p.row.type,
        network: p.row.network,
        eventId: p.row.id,
        body: p.row.body,
        nowMs,
        holdUntilHeight: holdUntilHeight(minOf.get(accountId) ?? 0, p.row.block_height as number, tips.get(p.row.network) as number),
      });
    }
  }
  // Rows held by earlier batches whose blocks the new tips confirm enough.
  await releaseHeldDeliveries(trx, tips, nowMs);
  const received = await addEventUsage(trx, events, nowMs);

  for (const observe of deps.observers) await observe(trx, { blocks: fresh, orphaned, tips, nowMs });
  return { blocks: blocksChanged, events: received, reorgs, changed: true };
}

/** Each watching account's min_confirmations on the network. */
function minConfirmationsOf(view: NetworkView): Map<string, number> {
  return new Map(view.watchers.map((w) => [w.accountId, w.webhook.events.min_confirmations]));
}

/** Adds the events each account received to its usage of the day (a block event reaches every watching account); returns the total. */
async function addEventUsage(trx: Transaction<DB>, events: PlannedEvent[], nowMs: number): Promise<number> {
  const counts = new Map<string, { events: number }>();
  let total = 0;
  for (const p of events) {
    for (const accountId of p.recipients) {
      const c = counts.get(accountId);
      if (c) c.events++;
      else counts.set(accountId, { events: 1 });
    }
    total += p.recipients.length;
  }
  await addUsage(trx, nowMs, counts);
  return total;
}
