import type { TestClient, TestDaemon } from "../support/harness.ts";
import type { Received } from "../support/webhook-sink.ts";

// Shared helpers of the payment-order flow tests: block batches in the ingest format and
// readers for the payment webhooks a sink received.

/** Hands out increasing heights and unique hashes, so every batch a test sends is a new, higher block. */
export function blockMaker(network = "eth", start = 1_000) {
  let height = start;
  return (transactions: unknown[] = []) => {
    height += 1;
    return {
      network,
      height,
      hash: `0x${height.toString(16).padStart(64, "b")}`,
      parent_hash: `0x${(height - 1).toString(16).padStart(64, "b")}`,
      timestamp: 1_763_750_000 + height,
      transactions,
    };
  };
}

let counter = 0;

/** A fresh lower-case EVM address (distinct per call within a process). */
export function freshAddress(prefix = "a"): string {
  return `0x${(++counter).toString(16).padStart(40, prefix)}`;
}

/** A fresh transaction hash. */
export function freshTxHash(): string {
  return `0x${(++counter).toString(16).padStart(64, "e")}`;
}

/** The parsed JSON bodies a sink received, in arrival order. */
export function bodies(received: Received[]): Record<string, any>[] {
  return received.map((r) => JSON.parse(r.body));
}

/** Ingests a batch and insists it was accepted. */
export async function ingestOk(td: TestDaemon, batch: unknown): Promise<void> {
  const res = await td.ingest(batch);
  if (res.status !== 202) throw new Error(`ingest answered ${res.status}: ${await res.text()}`);
}

/** Creates an order and returns its view, insisting on 201. */
export async function createOrder(c: TestClient, body: Record<string, unknown>): Promise<Record<string, any>> {
  const res = await c.request("POST", "/v1/payments", body);
  const json = (await res.json()) as Record<string, any>;
  if (res.status !== 201) throw new Error(`POST /v1/payments answered ${res.status}: ${JSON.stringify(json)}`);
  return json;
}

/** GETs an order's current view. */
export async function readOrder(c: TestClient, paymentId: string): Promise<Record<string, any>> {
  return (await (await c.request("GET", `/v1/payments/${paymentId}`)).json()) as Record<string, any>;
}

/** Points the account's payment webhooks at `url`. */
export async function setPaymentWebhook(c: TestClient, url: string): Promise<void> {
  const res = await c.request("PUT", "/v1/payments/settings", { webhook_url: url });
  if (res.status !== 200) throw new Error(`PUT /v1/payments/settings answered ${res.status}: ${await res.text()}`);
}

/** The exact key order of a payment-order webhook body (docs/payments.md). */
export const WEBHOOK_KEYS = [
  "product",
  "type",
  "event",
  "payment_id",
  "order_id",
  "network",
  "address",
  "asset",
  "amount",
  "amount_raw",
  "amount_received",
  "amount_received_raw",
  "status",
  "lifecycle",
  "tx_hash",
  "aml",
];
