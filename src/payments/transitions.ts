import type { Transaction } from "kysely";
import type { DB, Payment } from "../db/schema.ts";
import { paymentWebhooks } from "../delivery/outbox.ts";
import { queuePaymentWebhook } from "../webhooks/fan-out.ts";
import { parseJson } from "../lib/json.ts";
import type { StoredAml } from "./aml/screening.ts";
import { type PaymentStatus, statesToAnnounce } from "./lifecycle.ts";
import { saveOrder } from "./orders.ts";
import { readPaymentSettings } from "./settings.ts";
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
 * Moves an order through `states` inside the caller's transaction: one webhook per state it
 * announces (statesToAnnounce: never `pending`, never a state announced before), with the next
 * lifecycle sequence of the order, queued to the payments URL or to the endpoints that take
 * payment orders (webhooks/fan-out.ts), then the row itself. The state change and its webhooks
 * commit or roll back together. Returns the order as saved.
 */
export async function applyTransitions(trx: Transaction<DB>, input: TransitionInput): Promise<Payment> {
  const order: Payment = { ...input.order, tx_hash: input.txHash ?? input.order.tx_hash, updated_at: input.nowMs };
  if (input.states.length > 0) order.status = input.states[input.states.length - 1];
  const history = input.states.length > 0 ? await announcements(trx, order) : { sequence: 0, states: new Set<PaymentStatus>() };
  let sequence = history.sequence;
  const aml = parseJson<StoredAml | null>(order.aml, null);
  const announce = statesToAnnounce(input.states, history.states);
  const paymentsUrlSet = announce.length > 0 && (await readPaymentSettings(trx, order.account_id)).webhook_url !== null;
  for (const state of announce) {
    sequence += 1;
    const webhook = {
      accountId: order.account_id,
      network: order.network,
      paymentId: order.id,
      sequence,
      body: JSON.stringify(paymentWebhookBody(order, state, aml)),
      nowMs: input.nowMs,
    };
    await queuePaymentWebhook(trx, webhook, paymentsUrlSet);
  }
  await saveOrder(trx, order);
  return order;
}

/**
 * The order's last lifecycle sequence and the states it has announced. Sequences start at 1 and
 * grow by one per announced state; an order has a handful of these rows, and the
 * (payment_id, sequence) index finds them.
 */
async function announcements(trx: Transaction<DB>, order: Payment): Promise<{ sequence: number; states: Set<PaymentStatus> }> {
  const rows = await paymentWebhooks(trx, order.account_id, order.id);
  let sequence = 0;
  const states = new Set<PaymentStatus>();
  for (const r of rows) {
    sequence = Math.max(sequence, Number(r.sequence ?? 0));
    const event = parseJson<{ event?: PaymentStatus }>(r.body, {}).event;
    if (event) states.add(event);
  }
  return { sequence, states };
}
