import type { Transaction } from "kysely";
import type { Executor } from "../db/database.ts";
import type { DB, Payment } from "../db/schema.ts";
import { paymentWebhooks } from "../delivery/outbox.ts";
import { queuePaymentWebhook } from "../webhooks/fan-out.ts";
import { parseJson } from "../lib/json.ts";
import { readPaymentSettings } from "./settings.ts";
import { paymentStatements } from "./sql/dialects.ts";
import { type LatePayment, latePayment, latePaymentWebhookBody } from "./webhook-body.ts";

// Late payments (docs/payments.md): a payment to a wallet's address after its order ended (paid,
// failed, expired). The address stays watched for good — it is the merchant's and nobody else's —
// so the payment is recorded on the order (a `late` transfer, never counted), listed in its
// `late_payments`, announced once by a `late_payment` webhook when it has the network's
// confirmations, and retracted (`removed: true`) if a reorg orphans its block. An address the
// client gave is the merchant's own, used as they please: payments to it after its order ended
// are none of the order's business, and are neither listed nor announced.

/** A transfer row as these functions read it. */
type LateTransfer = { payment_id: string; tx_hash: string; amount_raw: string; block_height: number | string };

const CHUNK = 500;

/** The late payments of the wallet orders among `orders`, by payment id, oldest first (one query per 500 orders). */
export async function latePaymentsOf(db: Executor, orders: readonly Payment[]): Promise<Map<string, LatePayment[]>> {
  const byId = new Map(orders.filter((o) => o.derivation_index !== null).map((o) => [o.id, o]));
  const out = new Map<string, LatePayment[]>();
  const ids = [...byId.keys()];
  for (let i = 0; i < ids.length; i += CHUNK) {
    const { rows } = await db.executeQuery(paymentStatements(db).selectLatePayments(ids.slice(i, i + CHUNK)));
    for (const r of rows) {
      const order = byId.get(r.payment_id) as Payment;
      const list = out.get(r.payment_id);
      if (list) list.push(latePayment(order, r));
      else out.set(r.payment_id, [latePayment(order, r)]);
    }
  }
  return out;
}

/**
 * Announces late payments that just reached the network's confirmations, in the ingest
 * transaction: one `late_payment` webhook each, numbered after the order's earlier webhooks so it
 * is delivered after them. Transfers of orders with a given address are passed over.
 */
export async function announceLatePayments(trx: Transaction<DB>, transfers: readonly LateTransfer[], nowMs: number): Promise<void> {
  const byOrder = new Map<string, LateTransfer[]>();
  for (const t of transfers) {
    const list = byOrder.get(t.payment_id);
    if (list) list.push(t);
    else byOrder.set(t.payment_id, [t]);
  }
  for (const [paymentId, list] of byOrder) {
    const order = await trx.selectFrom("payments").selectAll().where("id", "=", paymentId).executeTakeFirstOrThrow();
    if (order.derivation_index === null) continue;
    let sequence = await lastSequence(trx, order);
    for (const t of list) {
      sequence += 1;
      await queue(trx, order, JSON.stringify(latePaymentWebhookBody(order, latePayment(order, t), false)), sequence, nowMs);
    }
  }
}

/**
 * Takes back an announced late payment whose block a reorg orphaned: the announcement again, as a
 * new webhook, with `removed: true`. The caller deletes the transfer in the same transaction.
 */
export async function retractLatePayment(trx: Transaction<DB>, order: Payment, t: LateTransfer, nowMs: number): Promise<void> {
  const rows = await paymentWebhooks(trx, order.account_id, order.id);
  const late = latePayment(order, t);
  const key = `${late.tx_hash}/${late.amount_raw}/${late.block_height}`;
  // The newest announcement of this payment not retracted yet: a payment mined again after a
  // reorg is announced again, and each announcement is taken back once.
  let open = 0;
  let body: Record<string, unknown> | null = null;
  for (const r of rows) {
    const b = parseJson<{ event?: string; removed?: boolean; late_payment?: LatePayment }>(r.body, {});
    if (b.event !== "late_payment" || !b.late_payment) continue;
    if (`${b.late_payment.tx_hash}/${b.late_payment.amount_raw}/${b.late_payment.block_height}` !== key) continue;
    open += b.removed ? -1 : 1;
    if (!b.removed) body = b as Record<string, unknown>;
  }
  if (open <= 0) return;
  const retraction = body ? { ...body, removed: true } : latePaymentWebhookBody(order, late, true);
  await queue(trx, order, JSON.stringify(retraction), (await lastSequence(trx, order)) + 1, nowMs);
}

async function lastSequence(trx: Transaction<DB>, order: Payment): Promise<number> {
  let sequence = 0;
  for (const r of await paymentWebhooks(trx, order.account_id, order.id)) sequence = Math.max(sequence, Number(r.sequence ?? 0));
  return sequence;
}

/** Queues the webhook to the payments URL or to the endpoints that take payment orders (webhooks/fan-out.ts). */
async function queue(trx: Transaction<DB>, order: Payment, body: string, sequence: number, nowMs: number): Promise<void> {
  const paymentsUrlSet = (await readPaymentSettings(trx, order.account_id)).webhook_url !== null;
  await queuePaymentWebhook(trx, { accountId: order.account_id, network: order.network, paymentId: order.id, sequence, body, nowMs }, paymentsUrlSet);
}
