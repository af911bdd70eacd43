import type { Executor } from "../db/database.ts";
import { newTimeOrderedId } from "../lib/ids.ts";

// Step 1 of a delivery: the row, written in the transaction of what it announces. Then the loop
// claims it (claim.ts), sends it (send.ts) and records the outcome (settle.ts).

/** What gets delivered: `event` (address watch), `payment` (payment order) or `test`. */
export type DeliveryKind = "event" | "payment" | "test";

export type EnqueueInput = {
  accountId: string;
  kind: DeliveryKind;
  /** payment · payout · other · block · payment_order: decides the price and, for tests, the route. */
  eventType: string;
  network: string;
  eventId?: string | null;
  paymentId?: string | null;
  /** Lifecycle position: deliveries of one payment are sent strictly in this order. */
  sequence?: number | null;
  /** The exact body bytes, sent unchanged on every attempt. */
  body: string;
  nowMs: number;
  /** Defaults to a fresh time-ordered `dlv_…`; tests and payloads that embed the id pass it in. */
  id?: string;
  /** Writes the row `held` until the network's tip reaches this height (min_confirmations, watch/confirmations.ts). */
  holdUntilHeight?: number | null;
};

/**
 * Writes one outbox row, due now (or held for confirmations). Call it in the same transaction as
 * the event or state change it announces: that is what makes delivery at-least-once across a crash.
 */
export async function enqueueDelivery(db: Executor, input: EnqueueInput): Promise<string> {
  const id = input.id ?? newTimeOrderedId("dlv");
  await db
    .insertInto("deliveries")
    .values({
      id,
      account_id: input.accountId,
      kind: input.kind,
      event_type: input.eventType,
      network: input.network,
      event_id: input.eventId ?? null,
      payment_id: input.paymentId ?? null,
      sequence: input.sequence ?? null,
      body: input.body,
      status: input.holdUntilHeight == null ? "pending" : "held",
      hold_until_height: input.holdUntilHeight ?? null,
      attempts: 0,
      next_attempt_at: input.nowMs,
      lease_until: null,
      last_status_code: null,
      last_error: null,
      credits_charged: 0,
      created_at: input.nowMs,
      updated_at: input.nowMs,
      completed_at: null,
    })
    .execute();
  return id;
}
