import type { CompiledQuery } from "kysely";

// The hot reads of payment orders (why hand-written: `src/db/statements.ts`): every checkout page
// view, and every order of each look of the live-update hub, reads its order, at up to thousands a
// second, and building the query cost more than SQLite spends running it; each mempool poll of a
// UTXO network asks whether any order waits. What each does, here; each dialect's text in
// `sqlite.ts` and `postgres.ts` beside this file.

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
};

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
