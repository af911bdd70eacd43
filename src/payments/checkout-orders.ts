import { sql } from "kysely";
import type { Executor } from "../db/database.ts";
import { checkoutKey } from "./checkout-token.ts";
import type { PaymentStatus } from "./lifecycle.ts";

// Reads for the payers' checkout pages (docs/checkout.md): only what a payer may see of an order,
// never its account, its merchant order id or its AML result.

// Keeps each IN (…) list well under SQLite's bound-parameter limit.
const CHUNK = 500;

/** What the checkout page shows of an order, as stored. */
export type CheckoutOrder = {
  id: string;
  network: string;
  address: string;
  asset: string | null;
  decimals: number;
  amount_raw: string;
  received_raw: string;
  confirmed_raw: string;
  status: PaymentStatus;
  expires_at: number;
  description: string | null;
  redirect_url: string | null;
  /** Height of the newest block holding a counted payment not yet confirmed; null when none waits. */
  unconfirmed_height: number | null;
};

function checkoutOrders(db: Executor) {
  return db
    .selectFrom("payments as p")
    .select([
      "p.id",
      "p.network",
      "p.address",
      "p.asset",
      "p.decimals",
      "p.amount_raw",
      "p.received_raw",
      "p.confirmed_raw",
      "p.status",
      "p.expires_at",
      "p.description",
      "p.redirect_url",
      // Over the order's own transfers, by the (payment_id, …) unique index of payment_transfers.
      // The states are tested inside the max, not in the WHERE: given `confirmed = 0` there,
      // SQLite's planner took the unconfirmed index instead and walked every unconfirmed transfer
      // of every order for each one looked up (7 ms a page view with 20,000 of them).
      (eb) =>
        eb
          .selectFrom("payment_transfers as t")
          .select(sql<number | null>`max(case when t.confirmed = 0 and t.late = 0 then t.block_height end)`.as("h"))
          .whereRef("t.payment_id", "=", "p.id")
          .as("unconfirmed_height"),
    ]);
}

function fromRow(row: Record<string, unknown>): CheckoutOrder {
  const r = row as Omit<CheckoutOrder, "expires_at" | "unconfirmed_height" | "decimals"> & { expires_at: unknown; unconfirmed_height: unknown; decimals: unknown };
  return {
    ...r,
    decimals: Number(r.decimals),
    expires_at: Number(r.expires_at),
    unconfirmed_height: r.unconfirmed_height === null || r.unconfirmed_height === undefined ? null : Number(r.unconfirmed_height),
  };
}

/**
 * The order whose checkout token is `token`, or undefined. Looked up by the token's SHA-256 (a
 * unique index), whatever the string: a malformed token costs what a real one does.
 */
export async function orderByCheckoutToken(db: Executor, token: string): Promise<CheckoutOrder | undefined> {
  const row = await checkoutOrders(db).where("p.checkout_key", "=", checkoutKey(token)).executeTakeFirst();
  return row ? fromRow(row) : undefined;
}

/** The current state of each of these orders (by payment_id), in as few statements as the bound-parameter limit allows. */
export async function checkoutOrdersById(db: Executor, ids: readonly string[]): Promise<Map<string, CheckoutOrder>> {
  const out = new Map<string, CheckoutOrder>();
  for (let i = 0; i < ids.length; i += CHUNK) {
    const rows = await checkoutOrders(db).where("p.id", "in", ids.slice(i, i + CHUNK)).execute();
    for (const row of rows) out.set(row.id, fromRow(row));
  }
  return out;
}
