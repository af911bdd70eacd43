import { sql } from "kysely";
import type { Db, Executor } from "../db/database.ts";
import type { Delivery } from "../db/schema.ts";
import type { Explained } from "../lib/error-codes.ts";
import { rfc3339 } from "../lib/time.ts";
import { resolveNotices } from "../notices/notices.ts";
import { isDeliveryStatus, STATUS_IS } from "./status-terms.ts";
import { deliveriesWithBodies } from "./outbox.ts";

// The operator's side of deliveries (the `deliveries` CLI): list, show with the attempt log, retry.

/** A status filter as a literal where it names a state (status-terms.ts); anything else matches no row, as a bound value would. */
function statusFilter(status: string) {
  return isDeliveryStatus(status) ? STATUS_IS[status] : sql<boolean>`status = ${status}`;
}

/** A delivery's place in the listing order (newest first: created_at, then id). */
export type ListPosition = Pick<Delivery, "created_at" | "id">;

export type ListFilter = {
  accountId?: string;
  status?: string;
  limit: number;
  /** Only deliveries listed after this one (older). */
  before?: ListPosition;
  /** Only deliveries listed before this one (newer); they come oldest first, the nearest first. */
  after?: ListPosition;
};

/** Newest first (oldest first with `after`): keyset ranges on (created_at, id), never an offset. */
export function listDeliveries(db: Db, f: ListFilter): Promise<Delivery[]> {
  let q = deliveriesWithBodies(db);
  if (f.accountId) q = q.where("account_id", "=", f.accountId);
  if (f.status) q = q.where(statusFilter(f.status));
  for (const [at, op, orEqual] of [
    [f.before, "<", "<="],
    [f.after, ">", ">="],
  ] as const) {
    // The bare bound on created_at lets the (account_id, created_at) index seek to the cursor
    // instead of walking every newer row; the pair decides ties within one millisecond.
    if (at)
      q = q.where("created_at", orEqual, at.created_at).where((eb) => eb.or([eb("created_at", op, at.created_at), eb("id", op, at.id)]));
  }
  const order = f.after ? "asc" : "desc";
  return q.orderBy("created_at", order).orderBy("id", order).limit(f.limit).execute();
}

/** How many deliveries a listing with these filters walks through (`deliveries list --count`): one count over the outbox. */
export async function countDeliveries(db: Db, f: Pick<ListFilter, "accountId" | "status">): Promise<number> {
  let q = db.selectFrom("deliveries").select((eb) => eb.fn.countAll<number>().as("n"));
  if (f.accountId) q = q.where("account_id", "=", f.accountId);
  if (f.status) q = q.where(statusFilter(f.status));
  return Number((await q.executeTakeFirstOrThrow()).n);
}

export type AttemptRow = Awaited<ReturnType<typeof attemptsOf>>[number];

/** The attempt log of some deliveries, oldest attempt first (in the order they were logged). */
export async function attemptsOf(db: Db, deliveryIds: string[]) {
  if (deliveryIds.length === 0) return [];
  return (
    db
      .selectFrom("delivery_attempts")
      .selectAll()
      .where("delivery_id", "in", deliveryIds)
      .orderBy("delivery_id")
      // Not by `attempt`: that number restarts at 1 after a re-queue (see deliveryView).
      .orderBy("id")
      .execute()
  );
}

/**
 * How many attempts each delivery has logged: the attempt count every view shows (the CLI, the
 * cabinet, notices). The `attempts` column is not that count: it is where the delivery stands in
 * its current retry schedule, which a retry or recovery starts again from 0, and it drives the backoff.
 */
export async function loggedAttemptCounts(db: Executor, deliveryIds: readonly string[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  // 500 ids per IN (…) list, far below SQLite's bound-parameter cap.
  for (let i = 0; i < deliveryIds.length; i += 500) {
    const rows = await db
      .selectFrom("delivery_attempts")
      .select((eb) => ["delivery_id", eb.fn.countAll<number>().as("n")])
      .where("delivery_id", "in", deliveryIds.slice(i, i + 500))
      .groupBy("delivery_id")
      .execute();
    for (const r of rows) counts.set(r.delivery_id, Number(r.n));
  }
  return counts;
}

export function getDelivery(db: Executor, id: string): Promise<Delivery | undefined> {
  return deliveriesWithBodies(db).where("id", "=", id).executeTakeFirst();
}

export type RetryResult = { ok: true; delivery: Delivery } | Explained<"DELIVERY_NOT_FOUND" | "DELIVERY_SUCCEEDED" | "DELIVERY_HELD">;

/**
 * Re-queues a delivery that has not succeeded: pending, due now, attempts back to 0 so it gets a
 * full `max_attempts` again, lease dropped; its `delivery_failed` notice, if any, is resolved. A
 * succeeded delivery is not sent twice on request.
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
    await resolveNotices(trx, { type: "delivery_failed", accountIds: [d.account_id], deliveryIds: [id] }, nowMs);
    return { ok: true, delivery: (await getDelivery(trx, id)) as Delivery };
  });
}

/**
 * The admin view of a delivery (CLI, cabinet); timestamps RFC 3339, the body left out (it is the
 * event). `attempts` is the number of logged attempts (loggedAttemptCounts), and the log, when
 * given, numbers them 1 to n oldest first; `requeued` marks an attempt that began a fresh retry
 * schedule after a retry, Resend or recovery (its schedule position restarted at 1).
 */
export function deliveryView(d: Delivery, attemptCount: number, log?: AttemptRow[]) {
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
    attempts: attemptCount,
    last_status_code: d.last_status_code,
    last_error: d.last_error,
    credits_charged: Number(d.credits_charged),
    next_attempt_at: d.status === "pending" ? rfc3339(d.next_attempt_at) : null,
    created_at: rfc3339(d.created_at),
    completed_at: d.completed_at === null ? null : rfc3339(d.completed_at),
    ...(log
      ? {
          attempt_log: log.map((a, i) => ({
            attempt: i + 1,
            requeued: i > 0 && a.attempt <= log[i - 1].attempt,
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
