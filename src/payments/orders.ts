import type { NetworkConfig } from "../config/schema.ts";
import type { Executor } from "../db/database.ts";
import type { Payment } from "../db/schema.ts";
import { parseJson } from "../lib/json.ts";
import { rfc3339 } from "../lib/time.ts";
import type { StoredAml } from "./aml/screening.ts";
import { latePaymentsOf } from "./late-payments.ts";
import { paymentStatements } from "./sql/dialects.ts";
import { checkoutUrl } from "./checkout-token.ts";
import { type PaymentStatus, TERMINAL_STATUSES } from "./lifecycle.ts";
import { type LatePayment, type OrderFacts, orderFacts } from "./webhook-body.ts";

// The `payments` table: orders as stored, found and shown. Creating one: ./create-order.ts.

/** Every order state, in lifecycle order (for filters and schemas). */
export const PAYMENT_STATUSES: readonly PaymentStatus[] = ["pending", "seen", "underpaid", "aml_check", "paid", "failed", "expired"];

/** An order as the API and the list show it: amounts as decimal strings, times RFC 3339. */
export type OrderView = OrderFacts & {
  status: PaymentStatus;
  tx_hash: string | null;
  expires_at: string;
  created_at: string;
  aml: StoredAml | null;
  /** The index of the payment wallet the address was derived at; null for an address the client gave. */
  derivation_index: number | null;
  /** Payments to a wallet's address after the order ended (docs/payments.md); always empty for a given address. */
  late_payments: LatePayment[];
  checkout_url: string;
  description: string | null;
  redirect_url: string | null;
};

/**
 * The client-facing shape of an order row, with its late payments (late-payments.ts reads them);
 * `publicUrl` is where the daemon is reached (its checkout page's address starts there).
 */
export function orderView(p: Payment, publicUrl: string, late: LatePayment[] = []): OrderView {
  return {
    ...orderFacts(p),
    status: p.status as PaymentStatus,
    tx_hash: p.tx_hash,
    expires_at: rfc3339(Number(p.expires_at)),
    created_at: rfc3339(Number(p.created_at)),
    aml: parseJson<StoredAml | null>(p.aml, null),
    derivation_index: p.derivation_index === null ? null : Number(p.derivation_index),
    late_payments: late,
    checkout_url: checkoutUrl(publicUrl, p.checkout_token),
    description: p.description,
    redirect_url: p.redirect_url,
  };
}

/** The views of order rows, their late payments read in one query per 500 wallet orders. */
export async function orderViews(db: Executor, rows: readonly Payment[], publicUrl: string): Promise<OrderView[]> {
  const late = await latePaymentsOf(db, rows);
  return rows.map((p) => orderView(p, publicUrl, late.get(p.id) ?? []));
}

/** Normalizes a token identifier the way the ingest feed does: EVM contracts lower-case, others as given. */
export function normalizeAsset(family: NetworkConfig["family"], asset: string | null): string | null {
  if (asset === null) return null;
  return family === "evm" ? asset.toLowerCase() : asset;
}

/**
 * The block hashes the transfers of a network's open (non-terminal) orders were seen in, as a
 * subquery: block retention keeps those blocks (ingest/retention.ts).
 */
export function openOrderBlockHashes(db: Executor, network: string) {
  return db
    .selectFrom("payment_transfers")
    .innerJoin("payments", "payments.id", "payment_transfers.payment_id")
    .select("payment_transfers.block_hash")
    .where("payments.network", "=", network)
    .where("payments.status", "not in", TERMINAL_STATUSES);
}

/** One order of an account; another account's order is not found. */
export async function getOrder(db: Executor, accountId: string, paymentId: string): Promise<Payment | undefined> {
  const { rows } = await db.executeQuery(paymentStatements(db).selectAccountOrder(accountId, paymentId));
  return rows[0];
}

export type OrdersFilter = { orderId?: string; status?: PaymentStatus; limit: number };

/** An account's orders, newest first, optionally narrowed to one order_id and/or status. */
export function listOrders(db: Executor, accountId: string, filter: OrdersFilter): Promise<Payment[]> {
  return ordersNewestFirst(db, accountId, filter).execute();
}

/** listOrders' query: read from an index in its order, all orders or one status's (migration 0034), never sorted. */
export function ordersNewestFirst(db: Executor, accountId: string, filter: OrdersFilter) {
  let q = db.selectFrom("payments").selectAll().where("account_id", "=", accountId);
  if (filter.orderId !== undefined) q = q.where("order_id", "=", filter.orderId);
  if (filter.status !== undefined) q = q.where("status", "=", filter.status);
  return q.orderBy("created_at", "desc").orderBy("id", "desc").limit(filter.limit);
}

/** Writes an order's mutable fields (state, amounts, tx, AML) back to its row. */
export async function saveOrder(db: Executor, order: Payment): Promise<void> {
  await db
    .updateTable("payments")
    .set({
      status: order.status,
      received_raw: order.received_raw,
      confirmed_raw: order.confirmed_raw,
      tx_hash: order.tx_hash,
      aml: order.aml,
      updated_at: order.updated_at,
    })
    .where("id", "=", order.id)
    .execute();
}
