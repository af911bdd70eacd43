import type { IngestedBlock } from "../chain/block.ts";
import type { NewEvent } from "../db/schema.ts";
import { SHARED } from "../watch/block-subscriptions.ts";
import { blockEventBody, walletEventBody } from "../watch/event-bodies.ts";
import { newEventId } from "../watch/events.ts";
import { blockDedupeKey, hitsOf, type WatchRef, walletDedupeKey } from "../watch/matcher.ts";
import { isDelivered, type Watcher } from "../watch/watchers.ts";

// The middle of the ingest walk, no I/O: a block and what the reads found → the events to write
// and the accounts whose webhook takes each. The service then writes rows and outbox entries.

/** What the matching reads found for one network, gathered before the write transaction. */
export type NetworkView = { decimals: number; watchers: Watcher[]; watches: Map<string, WatchRef[]> };

/**
 * An event about to be written: the accounts it counts for (one for a wallet event, every
 * watcher for a block event) and those whose webhook takes it.
 */
export type PlannedEvent = { row: NewEvent; recipients: string[]; deliverTo: string[] };

/** A block's events in the order they are stored: its `block` event, then its wallet events. */
export function planEvents(block: IngestedBlock, view: NetworkView, createdAt: string, nowMs: number): PlannedEvent[] {
  return [planBlockEvent(block, view, createdAt, nowMs), ...planWalletEvents(block, view, createdAt, nowMs)];
}

/** The block's one `block` event, stored once and received by every account watching the network. */
function planBlockEvent(block: IngestedBlock, view: NetworkView, createdAt: string, nowMs: number): PlannedEvent {
  const id = newEventId(nowMs);
  const body = blockEventBody({
    id,
    network: block.network,
    height: block.height,
    hash: block.hash,
    transactions: block.transactions.map((tx) => tx.hash),
    createdAt,
  });
  return {
    row: {
      id,
      account_id: SHARED,
      type: "block",
      network: block.network,
      watch_id: null,
      dedupe_key: blockDedupeKey(block.network, block.hash),
      body,
      created_at: nowMs,
      block_height: block.height,
      block_hash: block.hash,
    },
    recipients: view.watchers.map((w) => w.accountId),
    deliverTo: view.watchers.filter((w) => isDelivered(w, "block", null, block.network)).map((w) => w.accountId),
  };
}

/** One wallet event per hit on a watched address, in transaction and movement order. */
function planWalletEvents(block: IngestedBlock, view: NetworkView, createdAt: string, nowMs: number): PlannedEvent[] {
  if (view.watches.size === 0) return [];
  const watchers = new Map(view.watchers.map((w) => [w.accountId, w]));
  const lookup = (address: string) => view.watches.get(address);
  const out: PlannedEvent[] = [];
  for (const tx of block.transactions) {
    for (const hit of hitsOf(tx, lookup)) {
      const id = newEventId(nowMs);
      const accountId = hit.watch.accountId;
      const watcher = watchers.get(accountId);
      out.push({
        row: {
          id,
          account_id: accountId,
          type: hit.type,
          network: block.network,
          watch_id: hit.watch.id,
          dedupe_key: walletDedupeKey(hit, tx.hash),
          body: walletEventBody({
            id,
            hit,
            network: block.network,
            txHash: tx.hash,
            blockHeight: block.height,
            blockHash: block.hash,
            networkDecimals: view.decimals,
            createdAt,
          }),
          created_at: nowMs,
          block_height: block.height,
          block_hash: block.hash,
        },
        recipients: [accountId],
        deliverTo: watcher && isDelivered(watcher, hit.type, hit.direction, block.network) ? [accountId] : [],
      });
    }
  }
  return out;
}
