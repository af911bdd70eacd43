import type { Payment } from "../db/schema.ts";
import { newId } from "../lib/ids.ts";
import { rfc3339 } from "../lib/time.ts";
import type { PaymentOrderSample } from "../webhooks/samples.ts";
import type { TestPayments } from "../webhooks/test-endpoint.ts";
import { readPaymentSettings } from "./settings.ts";
import { paymentWebhookBody } from "./webhook-body.ts";

/**
 * The payment-order body of a test webhook (webhooks/samples.ts): the `paid` body of a sample order
 * paid in full by one transfer and screened clean, built by the builder of the real thing.
 */
export const samplePaymentOrder: PaymentOrderSample = ({ network, address, txHash, decimals, amountRaw, nowMs }) => {
  const createdAt = rfc3339(nowMs);
  const order: Payment = {
    id: newId("pay"),
    account_id: "sample",
    order_id: "test-order-1",
    network,
    address,
    asset: null,
    decimals,
    amount_raw: amountRaw,
    received_raw: amountRaw,
    confirmed_raw: amountRaw,
    status: "paid",
    tx_hash: txHash,
    expires_at: nowMs,
    aml: null,
    created_at: nowMs,
    updated_at: nowMs,
    wallet_id: null,
    derivation_index: null,
    // Not part of a webhook body: a sample order has no checkout page.
    checkout_token: "",
    checkout_key: "",
    description: null,
    redirect_url: null,
  };
  const aml = {
    score: 12,
    risk_level: "low" as const,
    hacking_event: "",
    detail_list: ["Exchange"],
    risk_detail: [],
    address_label: "Sample exchange wallet",
    checked_at: createdAt,
  };
  return JSON.stringify(paymentWebhookBody(order, "paid", aml));
};

/** What a webhook test needs of payments (webhooks/test-endpoint.ts): the sample body, and the account's payments URL. */
export const testPayments: TestPayments = {
  sample: samplePaymentOrder,
  webhookUrl: async (db, accountId) => (await readPaymentSettings(db, accountId)).webhook_url,
};
