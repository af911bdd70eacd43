import type { Payment } from "../db/schema.ts";
import { formatAmount } from "../lib/amount.ts";
import type { StoredAml } from "./aml/screening.ts";
import type { PaymentStatus } from "./lifecycle.ts";

/** The flat payment-order webhook body (seed §2 plus amount_received, amount_received_raw, asset). */
export type PaymentWebhookBody = {
  product: "payments";
  type: "payment_order";
  event: PaymentStatus;
  payment_id: string;
  order_id: string;
  network: string;
  address: string;
  asset: string | null;
  amount: string;
  amount_raw: string;
  amount_received: string;
  amount_received_raw: string;
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
    payment_id: order.id,
    order_id: order.order_id,
    network: order.network,
    address: order.address,
    asset: order.asset,
    amount: formatAmount(BigInt(order.amount_raw), order.decimals),
    amount_raw: order.amount_raw,
    amount_received: formatAmount(BigInt(order.received_raw), order.decimals),
    amount_received_raw: order.received_raw,
    status: state,
    lifecycle: state,
    tx_hash: order.tx_hash,
    aml: CARRIES_AML.has(state) ? aml : null,
  };
}
