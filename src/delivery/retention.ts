import { sql } from "kysely";
import type { Db, Executor } from "../db/database.ts";

const DAY_MS = 86_400_000;

// Deliveries per transaction: their attempts (up to max_attempts each) go in the same one, so a
// chunk stays a short write and the delivery loop and the API never wait long behind it.
const CHUNK = 1000;

/**
 * Settled outcomes: nothing more will be sent for these rows (`deliveries retry` can still re-queue
 * a failed one until it is pruned). Spelt so the due index (status, replay, next_attempt_at) cannot
 * serve it: given `status in (…)`, SQLite read every settled row through that index, for the
 * chunk's select (then sorted them all) and for its delete by id alike, each chunk of 1,000.
 */
const settled = sql<boolean>`coalesce(status, '') in ('succeeded', 'failed')`;

/**
 * The rows a chunk of the prune deletes: settled before `cutoff`, not a payment order's, oldest
 * first. Read through the partial index that holds exactly those rows (migration 0033): its own
 * `kind` term, written as the index writes it, lets both databases use it.
 */
export function oldestPrunable(db: Executor, cutoff: number, limit: number) {
  return db
    .selectFrom("deliveries")
    .select("id")
    .where("completed_at", "<", cutoff)
    .where(sql<boolean>`kind <> 'payment'`)
    .where(settled)
    .orderBy("completed_at")
    .limit(limit);
}

/**
 * Deletes a chunk's rows by key, with the conditions again: a `deliveries retry` between the read
 * and the delete keeps its row. Returns the ids deleted.
 */
export function deletePrunable(db: Executor, ids: string[], cutoff: number) {
  return db.deleteFrom("deliveries").where("id", "in", ids).where("completed_at", "<", cutoff).where(settled).returning("id");
}

export type DeliveryPruneResult = { deliveries: number; attempts: number };

/**
 * Deletes the address-watch and test deliveries that succeeded or failed more than `days` ago,
 * with their bodies and logged attempts. Pending, held and paused
 * deliveries are never deleted, however old. Payment-order webhooks stay: they are the order's
 * history (its timeline and the states it has announced, payments/transitions.ts), kept as long
 * as the order. Runs in chunks of 1,000 deliveries, each its own transaction.
 */
export async function pruneDeliveries(db: Db, nowMs: number, days: number, stopping: () => boolean = () => false): Promise<DeliveryPruneResult> {
  const cutoff = nowMs - days * DAY_MS;
  const out: DeliveryPruneResult = { deliveries: 0, attempts: 0 };
  while (!stopping()) {
    const n = await db.transaction().execute(async (trx) => {
      const candidates = await oldestPrunable(trx, cutoff, CHUNK).execute();
      if (candidates.length === 0) return 0;
      const deleted = await deletePrunable(
        trx,
        candidates.map((c) => c.id),
        cutoff,
      ).execute();
      if (deleted.length > 0) {
        const ids = deleted.map((d) => d.id);
        await trx.deleteFrom("delivery_bodies").where("delivery_id", "in", ids).execute();
        const attempts = await trx.deleteFrom("delivery_attempts").where("delivery_id", "in", ids).executeTakeFirst();
        out.attempts += Number(attempts.numDeletedRows);
      }
      out.deliveries += deleted.length;
      return candidates.length;
    });
    if (n < CHUNK) break;
  }
  return out;
}
