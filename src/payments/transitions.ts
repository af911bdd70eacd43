import type { Transaction } from "kysely";
import type { DB, Payment } from "../db/schema.ts";
import { enqueueDelivery } from "../delivery/enqueue.ts";
import { parseJson } from "../lib/json.ts";
import type { StoredAml } from "./aml/screening.ts";
import type { PaymentStatus } from "./lifecycle.ts";
import { saveOrder } from "./orders.ts";
import { paymentWebhookBody } from "./webhook-body.ts";

export type TransitionInput = {
  /** The order with any amount changes already applied; its status is the state it is leaving. */
  order: Payment;
  /** The states it enters, in order, as `nextStates` returned them (may be empty). */
  states: readonly PaymentStatus[];
  /** The transaction that moved the order; null keeps the one it has. */
  txHash: string | null;
  nowMs: number;
};

/**
 * Moves an order through `states` inside the caller's transaction: one outbox row per state, with
 * the next lifecycle sequence of the order, then the row itself. The state change and its webhooks
 * commit or roll back together. Returns the order as saved.
 */
export async function applyTransitions(trx: Transaction<DB>, input: TransitionInput): Promise<Payment> {
  const order: Payment = { ...input.order, tx_hash: input.txHash ?? input.order.tx_hash, updated_at: input.nowMs };
  let sequence = await lastSequence(trx, order.id);
  const aml = parseJson<StoredAml | null>(order.aml, null);
  for (const state of input.states) {
    order.status = state;
    sequence += 1;
    await enqueueDelivery(trx, {
      accountId: order.account_id,
      kind: "payment",
      eventType: "payment_order",
      network: order.network,
      paymentId: order.id,
      sequence,
      body: JSON.stringify(paymentWebhookBody(order, state, aml)),
      nowMs: input.nowMs,
    });
  }
  await saveOrder(trx, order);
  return order;
}

// Sequences start at 1 and grow by one per announced state; the (payment_id, sequence) index serves this.
async function lastSequence(trx: Transaction<DB>, paymentId: string): Promise<number> {
  const row = await trx
    .selectFrom("deliveries")
    .select((eb) => eb.fn.max("sequence").as("last"))
    .where("payment_id", "=", paymentId)
    .executeTakeFirst();
  return Number(row?.last ?? 0);
}
