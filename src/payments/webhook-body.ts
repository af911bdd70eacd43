import type { Payment } from "../db/schema.ts";
import { formatAmount } from "../lib/amount.ts";
import type { StoredAml } from "./aml/screening.ts";
import type { PaymentStatus } from "./lifecycle.ts";

/** What identifies an order and its amounts, as both the API view and the webhook body show them. */
export type OrderFacts = {
  payment_id: string;
  order_id: string;
  network: string;
  address: string;
  asset: string | null;
  amount: string;
  amount_raw: string;
  amount_received: string;
  amount_received_raw: string;
};

/** An order's facts, amounts as decimal strings beside their raw integers. */
export function orderFacts(p: Payment): OrderFacts {
  return {
    payment_id: p.id,
    order_id: p.order_id,
    network: p.network,
    address: p.address,
    asset: p.asset,
    amount: formatAmount(BigInt(p.amount_raw), p.decimals),
    amount_raw: p.amount_raw,
    amount_received: formatAmount(BigInt(p.received_raw), p.decimals),
    amount_received_raw: p.received_raw,
  };
}

/** The flat payment-order webhook body (docs/payments.md). */
export type PaymentWebhookBody = { product: "payments"; type: "payment_order"; event: PaymentStatus } & OrderFacts & {
  status: PaymentStatus;
  lifecycle: PaymentStatus;
  tx_hash: string | null;
  aml: StoredAml | null;
};

// Only the verdicts carry the screening result; aml_check announces that screening started.
const CARRIES_AML: ReadonlySet<PaymentStatus> = new Set<PaymentStatus>(["paid", "failed"]);

/** The body announcing that `order` entered `state`: event, status and lifecycle all name the new state. */
export function paymentWebhookBody(order: Payment, state: PaymentStatus, aml: StoredAml | null): PaymentWebhookBody {
  return {
    product: "payments",
    type: "payment_order",
    event: state,
    ...orderFacts(order),
    status: state,
    lifecycle: state,
    tx_hash: order.tx_hash,
    aml: CARRIES_AML.has(state) ? aml : null,
  };
}

/** A payment to a wallet's address after its order ended, as the order lists it and its webhook carries it. */
export type LatePayment = { tx_hash: string; amount: string; amount_raw: string; block_height: number };

/** The late payment of a transfer row, its amount in the order's decimals. */
export function latePayment(order: Pick<Payment, "decimals">, t: { tx_hash: string; amount_raw: string; block_height: number | string }): LatePayment {
  return { tx_hash: t.tx_hash, amount: formatAmount(BigInt(t.amount_raw), order.decimals), amount_raw: t.amount_raw, block_height: Number(t.block_height) };
}

/**
 * The body announcing a late payment (docs/payments.md): the order's facts and unchanged status,
 * the payment itself, and `removed` (true on the retraction after its block was orphaned).
 */
export type LatePaymentWebhookBody = { product: "payments"; type: "payment_order"; event: "late_payment" } & OrderFacts & {
  status: PaymentStatus;
  lifecycle: PaymentStatus;
  tx_hash: string | null;
  aml: null;
  late_payment: LatePayment;
  removed: boolean;
};

export function latePaymentWebhookBody(order: Payment, late: LatePayment, removed: boolean): LatePaymentWebhookBody {
  const status = order.status as PaymentStatus;
  return {
    product: "payments",
    type: "payment_order",
    event: "late_payment",
    ...orderFacts(order),
    status,
    lifecycle: status,
    tx_hash: order.tx_hash,
    aml: null,
    late_payment: late,
    removed,
  };
}
