import type { Transaction } from "kysely";
import { type BlockRef, orphanedByNetwork } from "../chain/chain-change.ts";
import type { DB } from "../db/schema.ts";
import { retractEventDeliveries } from "../delivery/outbox.ts";

export type Retraction = { events: number; deliveries: number; dropped: number };

/**
 * Retracts the events of orphaned blocks (docs/reference.md §8), inside the ingest transaction:
 *  - each event's body gets `"removed": true`, so the listing shows it removed where it was;
 *  - its dedupe key is set aside (suffixed with the event id), so the same transaction mined in
 *    the new chain makes a new event, and a re-sent orphaned block can make its events again;
 *  - every account that had a delivery of it that was let out (pending, sent, failed or paused)
 *    gets a NEW delivery whose body is the event with `"removed": true`, and deliveries still held
 *    for min_confirmations are deleted (retractEventDeliveries, delivery/outbox.ts).
 * Events already removed (of a block orphaned before, re-sent and orphaned again) are left alone.
 */
export async function retractOrphaned(trx: Transaction<DB>, orphaned: readonly BlockRef[], nowMs: number): Promise<Retraction> {
  const out: Retraction = { events: 0, deliveries: 0, dropped: 0 };
  for (const { network, hashes, heightSlices } of orphanedByNetwork(orphaned)) {
    for (const heights of heightSlices) {
      const rows = await trx
        .selectFrom("events")
        .select(["id", "type", "body", "dedupe_key", "block_hash"])
        .where("network", "=", network)
        .where("block_height", "in", heights)
        .orderBy("seq")
        .execute();
      const events = rows.filter((e) => e.block_hash !== null && hashes.has(e.block_hash));
      for (const e of events) {
        const body = JSON.parse(e.body) as Record<string, unknown>;
        if (body.removed === true) continue;
        const removedBody = JSON.stringify({ ...body, removed: true });
        await trx
          .updateTable("events")
          .set({ body: removedBody, dedupe_key: `${e.dedupe_key}~removed:${e.id}` })
          .where("id", "=", e.id)
          .execute();
        out.events += 1;
        const sent = await retractEventDeliveries(trx, { id: e.id, type: e.type, network, body: removedBody }, nowMs);
        out.deliveries += sent.deliveries;
        out.dropped += sent.dropped;
      }
    }
  }
  return out;
}
