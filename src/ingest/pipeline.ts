import type { Transaction } from "kysely";
import type { IngestedBlock } from "../chain/block.ts";
import type { Config } from "../config/schema.ts";
import type { Db } from "../db/database.ts";
import { serialize } from "../db/primitives.ts";
import type { DB } from "../db/schema.ts";
import type { Clock } from "../lib/clock.ts";
import { invalidInput } from "../lib/error-codes.ts";
import type { Logger } from "../lib/log.ts";
import { createPaymentObserver, type PaymentObserver } from "../payments/payment-observer.ts";
import { releaseHeldDeliveries } from "../delivery/outbox.ts";
import { networkTips } from "./blocks.ts";
import { canonicalHashAt } from "./canonical-chain.ts";
import { heightJumpError } from "./height-jump.ts";
import type { IngestResult, IngestService } from "./ingest-service.ts";
import { confirmationTips, lowerForReorgs, raiseQuorumHeight } from "./quorum-heights.ts";
import { queueEventWebhooks } from "./queue-webhooks.ts";
import { applyChain, type ChainRefusal, ChainRefused, type Reorg } from "./reorg.ts";
import { retractOrphaned } from "./retraction.ts";
import { applyOutputs, undoOrphanedOutputs } from "./spent-outputs.ts";
import { type NetworkViews, readNetworkViews, storeEvents } from "./store-events.ts";
import { uniqueBlocks } from "./unique-blocks.ts";

// The ingest pipeline (docs/chains.md): one code path for the chain followers, POST /ingest/blocks
// and `chainwatch ingest`, all of which hand it blocks in matching form (chain/block.ts: a follower
// builds them from its node's checked answers, a feed's are parsed and checked by block-from-feed.ts).
// A batch goes through five stages; 2 to 5 write in one transaction, so a batch is stored whole or
// not at all, and its webhooks with it:
//   1. block in         one hash at one height; none too far above its tip       unique-blocks.ts, height-jump.ts
//   2. canonical chain  blocks stored, reorgs applied: what became canonical,
//                       what was orphaned, the new tips                            reorg.ts
//   3. events           those of orphaned blocks retracted; on UTXO chains the
//                       spent-output index undone and applied (payouts found);
//                       the new blocks' events stored                              retraction.ts, spent-outputs.ts, store-events.ts
//   4. outbox           a webhook per event and account that takes it, held for
//                       min_confirmations; held ones the new tips reached released  queue-webhooks.ts
//   5. payment orders   transfers to order addresses recorded (those of orphaned
//                       blocks forgotten) and confirmed; orders move, with webhooks payments/payment-observer.ts
// On a network with an upstream quorum, stages 4 and 5 count confirmations against the tip capped
// at the height the quorum agreed on (quorum-heights.ts); `confirmQuorum` raises it and confirms
// what that lets through. After the commit, `onCommitted` wakes the delivery loop and the AML screening.

export type IngestDeps = {
  db: Db;
  clock: Clock;
  config: Config;
  log: Logger;
  /** Called after a batch that changed something commits (the daemon wakes delivery and AML screening). */
  onCommitted?: () => void;
  /** Counts reorgs (chainwatch_reorgs_total, chainwatch_deep_reorgs_total) when given. */
  metrics?: { inc(name: string, labels?: Record<string, string | number>): void };
};

/**
 * Builds the pipeline: checks a batch, then in one write transaction stores the new blocks,
 * their events, the webhook outbox rows, the usage counts and what the batch does to payment
 * orders; wakes delivery after commit. Invalid input stores nothing. Re-sent blocks (same
 * network + hash) add nothing. `events` in the result counts events as the accounts see them: a
 * block event once per account.
 */
export function createIngestPipeline(deps: IngestDeps): IngestService {
  const write: WriteDeps = { config: deps.config, observePayments: createPaymentObserver({ networks: deps.config.networks }) };
  return {
    async ingestBlocks(batch, opts = {}) {
      // 1. Block in.
      const fieldOf = opts.fieldOf ?? ((i: number) => `[${i}].`);
      const blocks = uniqueBlocks(batch, fieldOf);
      if (!Array.isArray(blocks)) return blocks;
      const placed = batch.map((b, i) => ({ network: b.network, height: b.height, field: fieldOf(i) }));
      // What stage 3 matches against, read first: the write transaction holds SQLite's single
      // writer lock, keep it short.
      const views = await readNetworkViews(deps.db, deps.config, blocks);
      const nowMs = deps.clock.now();
      let result: BatchWritten | { jump: string };
      try {
        result = await deps.db.transaction().execute(async (trx) => {
          // Batches write one at a time (SQLite's writer lock; an advisory lock on PostgreSQL): event
          // seq is max + 1, so commit order must be seq order, and payments must not move under
          // expiry. Taken first, so the tips below are not moved by another batch before this commits.
          await serialize(trx, "ingest");
          // A follower's batch lands only while it still leads; a throw here rolls it back whole.
          await opts.fence?.(trx);
          // Against the tips inside the transaction, before any write: a refused batch stores nothing.
          const jump = heightJumpError(placed, await networkTips(trx, placed.map((b) => b.network)), deps.config.ingest.max_height_jump);
          return jump ? { jump } : writeBatch(trx, write, blocks, views, nowMs);
        });
      } catch (e) {
        if (!(e instanceof ChainRefused)) throw e;
        return refused(deps, e.refusal);
      }
      if ("jump" in result) return invalidInput(result.jump);
      if (result.changed) deps.onCommitted?.();
      logIngest(deps.log, blocks, result);
      for (const r of result.reorgs) {
        deps.metrics?.inc("chainwatch_reorgs_total", { network: r.network });
        deps.log.warn("reorg", { network: r.network, depth: r.depth, from_height: r.fromHeight });
      }
      return { ok: true, blocks: result.blocks, events: result.events, reorgs: result.reorgs };
    },

    async confirmQuorum(network, height, hash, opts = {}) {
      const confirmed = await deps.db.transaction().execute(async (trx) => {
        await serialize(trx, "ingest");
        await opts.fence?.(trx);
        // The block the upstreams agreed on may have been replaced since they were asked.
        if ((await canonicalHashAt(trx, network, height))?.toLowerCase() !== hash.toLowerCase()) return false;
        const nowMs = deps.clock.now();
        await raiseQuorumHeight(trx, network, height, nowMs);
        const tips = await confirmationTips(trx, deps.config, [network]);
        await releaseHeldDeliveries(trx, tips, nowMs);
        await write.observePayments(trx, { blocks: [], orphaned: [], tips }, nowMs);
        return true;
      });
      if (confirmed) deps.onCommitted?.();
      return confirmed;
    },
  };
}

/** What the writing stages need beyond the transaction: the networks' reorg depths and the payments stage. */
type WriteDeps = { config: Config; observePayments: PaymentObserver };

type BatchWritten = { blocks: number; events: number; reorgs: Reorg[]; changed: boolean };

/** Stages 2 to 5, inside the batch's write transaction. */
async function writeBatch(trx: Transaction<DB>, deps: WriteDeps, blocks: IngestedBlock[], views: NetworkViews, nowMs: number): Promise<BatchWritten> {
  // 2. The canonical chain, inside the transaction, so two concurrent batches never store one
  // block twice; reorgs orphan here.
  const chain = await applyChain(trx, blocks, { maxReorgDepth: (n) => deps.config.networks[n].max_reorg_depth, nowMs });
  const { fresh, orphaned, reorgs } = chain;
  const blocksChanged = fresh.length + chain.reattached;
  if (blocksChanged === 0 && orphaned.length === 0) return { blocks: 0, events: 0, reorgs, changed: false };
  // 3. Events: what orphaned blocks announced is taken back (events and their deliveries), then
  // the new canonical blocks' events are stored.
  await retractOrphaned(trx, orphaned, nowMs);
  // UTXO chains: the outputs paid to watched addresses, and the payouts of the inputs spending them.
  await undoOrphanedOutputs(trx, orphaned);
  await applyOutputs(trx, fresh, views);
  // Where the upstream quorum vouched for blocks a reorg replaced, it vouches no more.
  await lowerForReorgs(trx, reorgs, nowMs);
  // Confirmations count against the tips, capped where an upstream quorum has not agreed yet.
  const tips = await confirmationTips(trx, deps.config, blocks.map((b) => b.network));
  const stored = await storeEvents(trx, fresh, views, nowMs);
  // 4. The outbox: their webhooks, and the held ones the new tips release.
  await queueEventWebhooks(trx, stored.events, tips, nowMs);
  // 5. Payment orders follow the canonical chain.
  await deps.observePayments(trx, { blocks: fresh, orphaned, tips }, nowMs);
  return { blocks: blocksChanged, events: stored.received, reorgs, changed: true };
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
