import type { Db } from "../db/database.ts";
import type { Failure, Result } from "../lib/error-codes.ts";
import { getOrder, type OrderView, orderViews } from "./orders.ts";

/** GET /v1/payments/{payment_id}: one order of the account; another account's order is not found. */
export async function getPaymentOrder(deps: { db: Db; publicUrl: () => string }, accountId: string, paymentId: string): Promise<Result<{ order: OrderView }, Failure<"PAYMENT_NOT_FOUND">>> {
  const row = await getOrder(deps.db, accountId, paymentId);
  if (!row) return { ok: false, code: "PAYMENT_NOT_FOUND" };
  const [order] = await orderViews(deps.db, [row], deps.publicUrl());
  return { ok: true, order };
}
