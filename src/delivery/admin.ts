import type { Db, Executor } from "../db/database.ts";
import type { Delivery } from "../db/schema.ts";
import type { Explained } from "../lib/error-codes.ts";
import { rfc3339 } from "../lib/time.ts";

// The operator's side of deliveries (the `deliveries` CLI): list, show with the attempt log, retry.

/** Statuses of a delivery row (docs/reference.md §5), plus `held` for min_confirmations (docs/reference.md §8). */
export const DELIVERY_STATUSES = ["pending", "succeeded", "failed", "paused", "held"] as const;

export type ListFilter = { accountId?: string; status?: string; limit: number };

/** Newest first. */
export function listDeliveries(db: Db, f: ListFilter): Promise<Delivery[]> {
  let q = db.selectFrom("deliveries").selectAll();
  if (f.accountId) q = q.where("account_id", "=", f.accountId);
  if (f.status) q = q.where("status", "=", f.status);
  return q.orderBy("created_at", "desc").orderBy("id", "desc").limit(f.limit).execute();
}

export type AttemptRow = Awaited<ReturnType<typeof attemptsOf>>[number];

/** The attempt log of some deliveries, oldest attempt first. */
export async function attemptsOf(db: Db, deliveryIds: string[]) {
  if (deliveryIds.length === 0) return [];
  return db
    .selectFrom("delivery_attempts")
    .selectAll()
    .where("delivery_id", "in", deliveryIds)
    .orderBy("delivery_id")
    .orderBy("attempt")
    .execute();
}

export function getDelivery(db: Executor, id: string): Promise<Delivery | undefined> {
  return db.selectFrom("deliveries").selectAll().where("id", "=", id).executeTakeFirst();
}

export type RetryResult = { ok: true; delivery: Delivery } | Explained<"DELIVERY_NOT_FOUND" | "DELIVERY_SUCCEEDED" | "DELIVERY_HELD">;

/**
 * Re-queues a delivery that has not succeeded: pending, due now, attempts back to 0 so it gets a
 * full `max_attempts` again, lease dropped. A succeeded delivery is not sent twice on request.
 */
export async function retryDelivery(db: Db, id: string, nowMs: number): Promise<RetryResult> {
  return db.transaction().execute(async (trx) => {
    const d = await getDelivery(trx, id);
    if (!d) return { ok: false, code: "DELIVERY_NOT_FOUND", error: `no such delivery: ${id}` };
    if (d.status === "succeeded") return { ok: false, code: "DELIVERY_SUCCEEDED", error: `delivery ${id} already succeeded` };
    // Sending it now would skip the account's min_confirmations; the tip releases it.
    if (d.status === "held") return { ok: false, code: "DELIVERY_HELD", error: `delivery ${id} is held until ${d.network} reaches height ${d.hold_until_height}` };
    await trx
      .updateTable("deliveries")
      .set({ status: "pending", attempts: 0, next_attempt_at: nowMs, lease_until: null, completed_at: null, updated_at: nowMs })
      .where("id", "=", id)
      .execute();
    return { ok: true, delivery: (await getDelivery(trx, id)) as Delivery };
  });
}

/** The admin view of a delivery (CLI); timestamps RFC 3339, the body left out (it is the event). */
export function deliveryView(d: Delivery, attempts?: AttemptRow[]) {
  return {
    id: d.id,
    account_id: d.account_id,
    kind: d.kind,
    replay: d.replay === 1,
    event_type: d.event_type,
    network: d.network,
    event_id: d.event_id,
    payment_id: d.payment_id,
    sequence: d.sequence,
    status: d.status,
    attempts: d.attempts,
    last_status_code: d.last_status_code,
    last_error: d.last_error,
    credits_charged: Number(d.credits_charged),
    next_attempt_at: d.status === "pending" ? rfc3339(d.next_attempt_at) : null,
    created_at: rfc3339(d.created_at),
    completed_at: d.completed_at === null ? null : rfc3339(d.completed_at),
    ...(attempts
      ? {
          attempt_log: attempts.map((a) => ({
            attempt: a.attempt,
            url: a.url,
            started_at: rfc3339(a.started_at),
            duration_ms: a.duration_ms,
            status_code: a.status_code,
            error: a.error,
            response: a.response_snippet,
          })),
        }
      : {}),
  };
}
