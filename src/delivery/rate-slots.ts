import { sql, type Transaction } from "kysely";
import type { Executor } from "../db/database.ts";
import { STATUS_IS } from "./status-terms.ts";
import type { DB, Delivery } from "../db/schema.ts";
import type { EndpointOf } from "./endpoint-deliveries.ts";

// The rows waiting for a slot of their endpoint's rate limit (docs/webhooks.md). When the
// throttle (throttle.ts) places a send in a later slot, the claim pushes the row back to it and
// leases it until then: `next_attempt_at` = `lease_until` = the slot. The lease ends as the row
// comes due, so no other mark is needed, and a claim then takes the row at once: its send was
// counted in that slot's second when it was placed.

/**
 * How late a slot may be claimed and still go out: later than this, the loop stalled (the daemon
 * was down, say) and the endpoint's schedule moves on whole (resumeLateSlots).
 */
export const LATE_MS = 1000;

/** A row of a rate-limited endpoint and the slot it waits for. */
export type Slot = { id: string; dueAt: number };

/** Whether the throttle already gave this row its slot: it goes out without asking the throttle again. */
export function hasSlot(r: Pick<Delivery, "lease_until" | "next_attempt_at">): boolean {
  return r.lease_until !== null && Number(r.lease_until) === Number(r.next_attempt_at);
}

/** Rows per UPDATE: five parameters each, far below SQLite's bound-parameter cap. */
const SLOTS_PER_UPDATE = 500;

/**
 * Pushes rows back to their slots, in the claim's transaction. Built, not hand-written: only a
 * throttled endpoint's rows come here, each once.
 */
export async function deferToSlots(trx: Transaction<DB>, slots: readonly Slot[], nowMs: number): Promise<void> {
  for (let at = 0; at < slots.length; at += SLOTS_PER_UPDATE) {
    const chunk = slots.slice(at, at + SLOTS_PER_UPDATE);
    // The cast gives PostgreSQL the column's type for the untyped parameters.
    const dueAt = () =>
      sql<number>`case id ${sql.join(
        chunk.map((s) => sql`when ${s.id} then cast(${s.dueAt} as bigint)`),
        sql` `,
      )} end`;
    await trx
      .updateTable("deliveries")
      .set({ next_attempt_at: dueAt(), lease_until: dueAt(), updated_at: nowMs })
      .where(
        "id",
        "in",
        chunk.map((s) => s.id),
      )
      .execute();
  }
}

/** The endpoint's rows waiting for a slot after `nowMs`. */
function waitingForSlots(db: Executor, e: EndpointOf, nowMs: number) {
  return db
    .selectFrom("deliveries")
    .where("account_id", "=", e.accountId)
    .where("endpoint_id", "=", e.endpointId)
    .where(STATUS_IS.pending)
    .where("next_attempt_at", ">", nowMs)
    .whereRef("lease_until", "=", "next_attempt_at");
}

/**
 * The last slot any daemon gave a row of the endpoint that is still waiting for it, or null: where
 * a daemon that does not know the endpoint's schedule (just started, or another daemon placed it)
 * goes on from, so new rows never overtake waiting ones.
 */
export async function lastRateSlot(db: Executor, e: EndpointOf, nowMs: number): Promise<number | null> {
  const row = await waitingForSlots(db, e, nowMs)
    .select(sql<number | string | null>`max(next_attempt_at)`.as("last"))
    .executeTakeFirst();
  return row?.last === null || row?.last === undefined ? null : Number(row.last);
}

/**
 * Makes the endpoint's rows waiting for a slot due now, in the order they waited, the last one due
 * now: call it in the transaction that changes the endpoint's limit, so they are placed again at
 * the new rate instead of keeping the old one's slots.
 */
export async function releaseRateSlots(db: Executor, e: EndpointOf, nowMs: number): Promise<void> {
  const last = await lastRateSlot(db, e, nowMs);
  if (last === null) return;
  // The cast gives PostgreSQL the column's type for the untyped parameter.
  const shift = last - nowMs;
  await db
    .updateTable("deliveries")
    .set({ next_attempt_at: sql<number>`next_attempt_at - cast(${shift} as bigint)`, lease_until: null, updated_at: nowMs })
    .where("account_id", "=", e.accountId)
    .where("endpoint_id", "=", e.endpointId)
    .where(STATUS_IS.pending)
    .where("next_attempt_at", ">", nowMs)
    .whereRef("lease_until", "=", "next_attempt_at")
    .execute();
}

/**
 * Moves the endpoint's whole schedule — every row waiting for a slot, those whose slot went by more
 * than LATE_MS ago included — later by one amount, so its oldest is due now: after a stall the
 * backlog goes on at its pace and in its order instead of catching up in a burst. Answers the last
 * slot after the move, or null when nothing waits.
 */
export async function resumeLateSlots(db: Executor, e: EndpointOf, nowMs: number): Promise<number | null> {
  const slotted = () =>
    db
      .selectFrom("deliveries")
      .where("account_id", "=", e.accountId)
      .where("endpoint_id", "=", e.endpointId)
      .where(STATUS_IS.pending)
      .whereRef("lease_until", "=", "next_attempt_at");
  const span = await slotted()
    .select([sql<number | string | null>`min(next_attempt_at)`.as("first"), sql<number | string | null>`max(next_attempt_at)`.as("last")])
    .executeTakeFirst();
  if (span?.first === null || span?.first === undefined || span.last === null) return null;
  const shift = nowMs - Number(span.first);
  if (shift <= 0) return Number(span.last);
  // The cast gives PostgreSQL the column's type for the untyped parameter.
  const by = sql<number>`cast(${shift} as bigint)`;
  await db
    .updateTable("deliveries")
    .set({ next_attempt_at: sql<number>`next_attempt_at + ${by}`, lease_until: sql<number>`lease_until + ${by}`, updated_at: nowMs })
    .where("account_id", "=", e.accountId)
    .where("endpoint_id", "=", e.endpointId)
    .where(STATUS_IS.pending)
    .whereRef("lease_until", "=", "next_attempt_at")
    .execute();
  return Number(span.last) + shift;
}
