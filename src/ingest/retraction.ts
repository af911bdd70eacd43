import type { Transaction } from "kysely";
import type { DB } from "../db/schema.ts";
import { enqueueDelivery } from "../delivery/enqueue.ts";
import { type BlockRef, orphanedByNetwork } from "./reorg.ts";

export type Retraction = { events: number; deliveries: number; dropped: number };

/**
 * Retracts the events of orphaned blocks (docs/reference.md §8), inside the ingest transaction:
 *  - each event's body gets `"removed": true`, so the listing shows it removed where it was;
 *  - its dedupe key is set aside (suffixed with the event id), so the same transaction mined in
 *    the new chain makes a new event, and a re-sent orphaned block can make its events again;
 *  - every account that had a delivery of it that was let out (pending, sent, failed or paused)
 *    gets a NEW delivery whose body is the event with `"removed": true`;
 *  - deliveries still held for min_confirmations are deleted: the event never went out, so its
 *    removal does not go out either.
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
        const sent = await retractDeliveries(trx, { id: e.id, type: e.type, network, body: removedBody }, nowMs);
        out.deliveries += sent.deliveries;
        out.dropped += sent.dropped;
      }
    }
  }
  return out;
}

/** Deletes the event's held deliveries and queues one removal per account whose delivery was let out. */
async function retractDeliveries(
  trx: Transaction<DB>,
  e: { id: string; type: string; network: string; body: string },
  nowMs: number,
): Promise<{ deliveries: number; dropped: number }> {
  const rows = await trx.selectFrom("deliveries").select(["id", "account_id", "status"]).where("event_id", "=", e.id).where("kind", "=", "event").orderBy("id").execute();
  const held = rows.filter((d) => d.status === "held").map((d) => d.id);
  if (held.length > 0) await trx.deleteFrom("deliveries").where("id", "in", held).execute();
  const accounts = [...new Set(rows.filter((d) => d.status !== "held").map((d) => d.account_id))];
  for (const accountId of accounts) {
    await enqueueDelivery(trx, { accountId, kind: "event", eventType: e.type, network: e.network, eventId: e.id, body: e.body, nowMs });
  }
  return { deliveries: accounts.length, dropped: held.length };
}
