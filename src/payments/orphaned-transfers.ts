import type { Transaction } from "kysely";
import type { DB } from "../db/schema.ts";
import { type BlockRef, orphanedByNetwork } from "../ingest/reorg.ts";
import { isTerminal, type PaymentStatus } from "./lifecycle.ts";

/**
 * Payment orders count canonical blocks only (docs/reference.md §8). A transfer recorded from a block a reorg
 * orphaned is deleted and taken off its order's received (and, if it had confirmed, confirmed)
 * total, so it stops counting; the same transaction mined in the new chain is recorded afresh.
 * No state moves and no webhook is sent: `seen` stays seen, and an order in `aml_check` finishes
 * its screening. Orders in a terminal state are left exactly as they are, transfers included.
 */
export async function forgetOrphanedTransfers(trx: Transaction<DB>, orphaned: readonly BlockRef[], nowMs: number): Promise<void> {
  for (const { network, hashes, heightSlices } of orphanedByNetwork(orphaned)) {
    for (const heights of heightSlices) {
      const rows = await trx
        .selectFrom("payment_transfers as t")
        .innerJoin("payments as p", "p.id", "t.payment_id")
        .select(["t.id", "t.payment_id", "t.block_hash", "t.amount_raw", "t.confirmed", "t.late", "p.status"])
        .where("p.network", "=", network)
        // Both values of `confirmed`, so the (confirmed, block_height) index serves the height list.
        .where("t.confirmed", "in", [0, 1])
        .where("t.block_height", "in", heights)
        .execute();
      for (const t of rows) {
        if (!hashes.has(t.block_hash) || isTerminal(t.status as PaymentStatus)) continue;
        await trx.deleteFrom("payment_transfers").where("id", "=", t.id).execute();
        if (t.late === 1) continue;
        const amount = BigInt(t.amount_raw);
        const order = await trx.selectFrom("payments").select(["received_raw", "confirmed_raw"]).where("id", "=", t.payment_id).executeTakeFirstOrThrow();
        await trx
          .updateTable("payments")
          .set({
            received_raw: (BigInt(order.received_raw) - amount).toString(),
            confirmed_raw: (BigInt(order.confirmed_raw) - (t.confirmed === 1 ? amount : 0n)).toString(),
            updated_at: nowMs,
          })
          .where("id", "=", t.payment_id)
          .execute();
      }
    }
  }
}
