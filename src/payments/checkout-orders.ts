import type { Executor } from "../db/database.ts";
import { checkoutKey } from "./checkout-token.ts";
import type { PaymentStatus } from "./lifecycle.ts";
import { paymentStatements } from "./sql/dialects.ts";

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
  const { rows } = await db.executeQuery(paymentStatements(db).selectCheckoutOrderByKey(checkoutKey(token)));
  return rows.length > 0 ? fromRow(rows[0]) : undefined;
}

/** The current state of each of these orders (by payment_id), in as few statements as the bound-parameter limit allows. */
export async function checkoutOrdersById(db: Executor, ids: readonly string[]): Promise<Map<string, CheckoutOrder>> {
  const out = new Map<string, CheckoutOrder>();
  for (let i = 0; i < ids.length; i += CHUNK) {
    const { rows } = await db.executeQuery(paymentStatements(db).selectCheckoutOrdersById(ids.slice(i, i + CHUNK)));
    for (const row of rows) out.set(row.id, fromRow(row));
  }
  return out;
}
