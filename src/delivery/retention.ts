import { sql } from "kysely";
import type { Db } from "../db/database.ts";

const DAY_MS = 86_400_000;

// Deliveries per transaction: their attempts (up to max_attempts each) go in the same one, so a
// chunk stays a short write and the delivery loop and the API never wait long behind it.
const CHUNK = 1000;

/** Settled outcomes: nothing more will be sent for these rows (`deliveries retry` can still re-queue a failed one until it is pruned). */
const settled = sql<boolean>`status in ('succeeded', 'failed')`;

export type DeliveryPruneResult = { deliveries: number; attempts: number };

/**
 * Deletes the address-watch and test deliveries that succeeded or failed more than `days` ago,
 * with their logged attempts. Pending, held and paused
 * deliveries are never deleted, however old. Payment-order webhooks stay: they are the order's
 * history (its timeline and the states it has announced, payments/transitions.ts), kept as long
 * as the order. Runs in chunks of 1,000 deliveries, each its own transaction.
 */
export async function pruneDeliveries(db: Db, nowMs: number, days: number, stopping: () => boolean = () => false): Promise<DeliveryPruneResult> {
  const cutoff = nowMs - days * DAY_MS;
  const out: DeliveryPruneResult = { deliveries: 0, attempts: 0 };
  while (!stopping()) {
    const n = await db.transaction().execute(async (trx) => {
      // Oldest first, through the partial index on completed_at (migration 0024).
      const candidates = await trx
        .selectFrom("deliveries")
        .select("id")
        .where("completed_at", "<", cutoff)
        .where(settled)
        .where("kind", "!=", "payment")
        .orderBy("completed_at")
        .limit(CHUNK)
        .execute();
      if (candidates.length === 0) return 0;
      // The conditions again: a `deliveries retry` between the read and the delete keeps its row.
      const deleted = await trx
        .deleteFrom("deliveries")
        .where(
          "id",
          "in",
          candidates.map((c) => c.id),
        )
        .where("completed_at", "<", cutoff)
        .where(settled)
        .returning("id")
        .execute();
      if (deleted.length > 0) {
        const attempts = await trx
          .deleteFrom("delivery_attempts")
          .where(
            "delivery_id",
            "in",
            deleted.map((d) => d.id),
          )
          .executeTakeFirst();
        out.attempts += Number(attempts.numDeletedRows);
      }
      out.deliveries += deleted.length;
      return candidates.length;
    });
    if (n < CHUNK) break;
  }
  return out;
}
