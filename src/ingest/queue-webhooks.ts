import type { Transaction } from "kysely";
import type { DB } from "../db/schema.ts";
import { enqueueDelivery, releaseHeldDeliveries } from "../delivery/outbox.ts";
import { holdUntilHeight } from "../watch/confirmations.ts";
import type { NetworkView, PlannedEvent } from "./plan-events.ts";
import type { NetworkViews } from "./store-events.ts";

// The outbox stage of the pipeline (pipeline.ts): the webhooks of the events just stored, written
// in the same transaction as the events (delivery/outbox.ts).

/**
 * Queues one delivery per stored event for each account whose webhook takes it (plan-events.ts
 * decided which), held until its block has the account's min_confirmations; then releases the
 * rows held by earlier batches that the new tips confirm enough.
 */
export async function queueEventWebhooks(
  trx: Transaction<DB>,
  events: readonly PlannedEvent[],
  views: NetworkViews,
  tips: ReadonlyMap<string, number>,
  nowMs: number,
): Promise<void> {
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
  await releaseHeldDeliveries(trx, tips, nowMs);
}

/** Each watching account's min_confirmations on the network. */
function minConfirmationsOf(view: NetworkView): Map<string, number> {
  return new Map(view.watchers.map((w) => [w.accountId, w.webhook.events.min_confirmations]));
}
