import type { Transaction } from "kysely";
import { type BlockRef, orphanedByNetwork } from "../chain/chain-change.ts";
import type { DB } from "../db/schema.ts";
import { retractEventDeliveries } from "../delivery/outbox.ts";
import { markEventsRemoved } from "../watch/events.ts";

export type Retraction = { events: number; deliveries: number; dropped: number };

/**
 * Retracts the events of orphaned blocks (docs/chains.md), inside the ingest transaction:
 *  - each event is marked removed where it is listed (markEventsRemoved, watch/events.ts);
 *  - every account that had a delivery of it that was let out (pending, sent, failed or paused)
 *    gets a NEW delivery whose body is the event with `"removed": true`, and deliveries still held
 *    for min_confirmations are deleted (retractEventDeliveries, delivery/outbox.ts).
 */
export async function retractOrphaned(trx: Transaction<DB>, orphaned: readonly BlockRef[], nowMs: number): Promise<Retraction> {
  const out: Retraction = { events: 0, deliveries: 0, dropped: 0 };
  for (const { network, hashes, heightSlices } of orphanedByNetwork(orphaned)) {
    for (const heights of heightSlices) {
      for (const e of await markEventsRemoved(trx, { network, heights, hashes })) {
        out.events += 1;
        const sent = await retractEventDeliveries(trx, e, nowMs);
        out.deliveries += sent.deliveries;
        out.dropped += sent.dropped;
      }
    }
  }
  return out;
}
