import type { CompiledQuery } from "kysely";
import type { Payment } from "../../db/schema.ts";
import { TERMINAL_STATUSES } from "../lifecycle.ts";

// The hot statements of payment orders (why hand-written: `src/db/statements.ts`): every checkout
// page view, and every order of each look of the live-update hub, reads its order, at up to
// thousands a second, and building the query cost more than SQLite spends running it; each mempool
// poll of a UTXO network asks whether any order waits; an order's creation checks and writes it in
// four statements, which built by Kysely were a quarter of its CPU; a merchant polling an order
// (GET /v1/payments/{id}) reads it and its late payments. What each does, here; each dialect's
// text in `sqlite.ts` and `postgres.ts` beside this file.

/** An order as the checkout reads it, before its numbers are made numbers (checkout-orders.ts). */
export type CheckoutOrderRow = Record<string, unknown> & { id: string };

/** The hand-written statements of payment orders. Those over a list take at most what their caller chunks them to. */
export type PaymentStatements = {
  /** The order whose checkout key (the token's SHA-256) is `key`: no row when none. */
  selectCheckoutOrderByKey(key: string): CompiledQuery<CheckoutOrderRow>;
  /** The orders of these ids that exist, in no order. */
  selectCheckoutOrdersById(ids: readonly string[]): CompiledQuery<CheckoutOrderRow>;
  /** One order of the network still waiting for a first payment in its native asset (pending or seen): no row when none. */
  selectWaitingNativeOrder(network: string): CompiledQuery<{ id: string }>;
  /** The account's order with this merchant `order_id`: no row when none. */
  selectOrderIdTaken(accountId: string, orderId: string): CompiledQuery<{ id: string }>;
  /** One order of a payment wallet (any account's) at this address: no row when none. */
  selectDerivedOrderAt(network: string, address: string): CompiledQuery<{ id: string }>;
  /** One order (of any account) not yet in a terminal state at this address, in this asset (null: the native coin): no row when none. */
  selectLiveOrderAt(network: string, address: string, asset: string | null): CompiledQuery<{ id: string }>;
  /** Writes a new order, every column of ORDER_COLUMNS. */
  insertOrder(order: Payment): CompiledQuery;
  /** The account's order `paymentId`, every column: no row when it is not the account's. */
  selectAccountOrder(accountId: string, paymentId: string): CompiledQuery<Payment>;
  /** The late payments of these orders (transfers after the order ended), oldest first. */
  selectLatePayments(paymentIds: readonly string[]): CompiledQuery<LateTransferRow>;
};

/** A late payment's transfer as an order's view reads it. */
export type LateTransferRow = { payment_id: string; tx_hash: string; amount_raw: string; block_height: number };

/** The terminal states as a list of SQL literals, for `status not in (…)`. */
export const TERMINAL_LIST = TERMINAL_STATUSES.map((s) => `'${s}'`).join(", ");

const ORDER_KEYS = [
  "id", "account_id", "order_id", "network", "address", "asset", "decimals", "amount_raw", "received_raw", "confirmed_raw", "status",
  "tx_hash", "expires_at", "aml", "created_at", "updated_at", "wallet_id", "derivation_index", "checkout_token", "checkout_key",
  "description", "redirect_url",
] as const satisfies readonly (keyof Payment)[];

/** The columns an order's insert writes, in the order `orderParams` binds them. */
export const ORDER_COLUMNS = ORDER_KEYS.join(", ");
export const ORDER_WIDTH = ORDER_KEYS.length;

/** The parameters of an order's insert, as ORDER_COLUMNS names them. */
export function orderParams(order: Payment): unknown[] {
  return ORDER_KEYS.map((k) => order[k]);
}

/**
 * What the checkout reads of an order, with the height of its newest payment still waiting for
 * confirmations: over the order's own transfers, by the (payment_id, …) unique index of
 * payment_transfers. The states are tested inside the max, not in a WHERE: given `confirmed = 0`
 * there, SQLite's planner took the index of unconfirmed transfers instead and walked those of every
 * order for each one read (test/checkout/lookup-plan.test.ts).
 */
export const CHECKOUT_ORDER = `select p.id, p.network, p.address, p.asset, p.decimals, p.amount_raw, p.received_raw, p.confirmed_raw,
  p.status, p.expires_at, p.description, p.redirect_url,
  (select max(case when t.confirmed = 0 and t.late = 0 then t.block_height end) from payment_transfers as t where t.payment_id = p.id) as unconfirmed_height
from payments as p`;
