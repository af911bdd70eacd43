import type { Transaction } from "kysely";
import type { DB } from "../db/schema.ts";
import { type EnqueueInput, enqueueDeliveries, releaseHeldDeliveries } from "../delivery/outbox.ts";
import { holdUntilHeight } from "../watch/confirmations.ts";
import type { PlannedEvent } from "./plan-events.ts";

// The outbox stage of the pipeline (pipeline.ts): the webhooks of the events just stored, written
// in the same transaction as the events (delivery/outbox.ts).

/**
 * Queues one delivery per stored event for each webhook endpoint that takes it (plan-events.ts
 * decided which, webhooks/fan-out.ts), held until its block has the endpoint's min_confirmations;
 * then releases the rows held by earlier batches that the new tips confirm enough. The rows go in
 * a few multi-row INSERTs, in the events' order: one statement (on PostgreSQL one round trip) per
 * row cost more than the rows.
 */
export async function queueEventWebhooks(trx: Transaction<DB>, events: readonly PlannedEvent[], tips: ReadonlyMap<string, number>, nowMs: number): Promise<void> {
  const rows: EnqueueInput[] = [];
  for (const p of events) {
    for (const target of p.deliverTo) {
      rows.push({
        accountId: target.accountId,
        endpointId: target.endpointId,
        kind: "event",
        eventType: p.row.type,
        network: p.row.network,
        eventId: p.row.id,
        body: p.row.body,
        nowMs,
        holdUntilHeight: holdUntilHeight(target.minConfirmations, p.row.block_height as number, tips.get(p.row.network) as number),
      });
    }
  }
  await enqueueDeliveries(trx, rows);
  await releaseHeldDeliveries(trx, tips, nowMs);
}
