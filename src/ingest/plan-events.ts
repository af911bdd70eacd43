import type { IngestedBlock } from "../chain/block.ts";
import type { Family } from "../chain/family.ts";
import type { NewEvent } from "../db/schema.ts";
import { SHARED } from "../watch/block-subscriptions.ts";
import { blockEventBody, walletEventBody } from "../watch/event-bodies.ts";
import { newEventId } from "../watch/events.ts";
import { blockDedupeKey, hitsOf, type WatchRef, walletDedupeKey } from "../watch/matcher.ts";
import { endpointsTaking, type TargetEndpoint } from "../webhooks/fan-out.ts";

// The middle of the ingest walk, no I/O: a block and what the reads found → the events to write
// and the webhook endpoints that take each. The service then writes rows and outbox entries.

/** An account watching a network, with its enabled webhook endpoints. */
export type Watcher = { accountId: string; endpoints: TargetEndpoint[] };

/** What the matching reads found for one network, gathered before the write transaction. */
export type NetworkView = { decimals: number; family: Family; watchers: Watcher[]; watches: Map<string, WatchRef[]> };

/** A webhook endpoint an event goes to, with its own min_confirmations. */
export type EventTarget = { accountId: string; endpointId: string; minConfirmations: number };

/**
 * An event about to be written: the accounts it counts for (one for a wallet event, every
 * watcher for a block event) and the endpoints that take it (webhooks/fan-out.ts: one delivery each).
 */
export type PlannedEvent = { row: NewEvent; recipients: string[]; deliverTo: EventTarget[] };

/** The endpoints of `w` whose filters take an event of `type` (and `direction`) on `network`. */
function targets(w: Watcher, type: string, direction: "in" | "out" | null, network: string): EventTarget[] {
  return endpointsTaking(w.endpoints, type, direction, network).map((e) => ({ accountId: w.accountId, endpointId: e.id, minConfirmations: e.events.min_confirmations }));
}

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
    deliverTo: view.watchers.flatMap((w) => targets(w, "block", null, block.network)),
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
            family: view.family,
            createdAt,
          }),
          created_at: nowMs,
          block_height: block.height,
          block_hash: block.hash,
        },
        recipients: [accountId],
        deliverTo: watcher ? targets(watcher, hit.type, hit.direction, block.network) : [],
      });
    }
  }
  return out;
}
