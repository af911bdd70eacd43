import type { Db } from "../db/database.ts";
import { type InvalidInput, invalidInput, isFailure, type Result } from "../lib/error-codes.ts";
import { integerParam, type RawQuery, single } from "../lib/query-params.ts";
import type { PaymentStatus } from "./lifecycle.ts";
import { listOrders, type OrderView, orderViews, PAYMENT_STATUSES } from "./orders.ts";

/** Orders listed at most per request when `limit` is absent, and the highest `limit` accepted. */
export const DEFAULT_LIST_LIMIT = 100;
export const MAX_LIST_LIMIT = 1000;

/** The `status` filter of a listing (the API and the cabinet): absent, or a known status. */
export function parseStatus(raw: string | undefined): PaymentStatus | undefined | InvalidInput {
  if (raw === undefined || raw === "") return undefined;
  if (!(PAYMENT_STATUSES as readonly string[]).includes(raw)) return invalidInput(`status must be one of ${PAYMENT_STATUSES.join(", ")}`);
  return raw as PaymentStatus;
}

/** GET /v1/payments: an account's orders, newest first, narrowed by `order_id`, `status` and `limit`. */
export async function listPaymentOrders(deps: { db: Db; publicUrl: () => string }, accountId: string, query: RawQuery): Promise<Result<{ payments: OrderView[] }, InvalidInput>> {
  const orderId = single(query, "order_id");
  if (isFailure(orderId)) return orderId;
  const rawStatus = single(query, "status");
  if (isFailure(rawStatus)) return rawStatus;
  const status = parseStatus(rawStatus);
  if (isFailure(status)) return status;
  const limit = integerParam(query, "limit", { min: 1, max: MAX_LIST_LIMIT, fallback: DEFAULT_LIST_LIMIT });
  if (isFailure(limit)) return limit;
  const rows = await listOrders(deps.db, accountId, { orderId: orderId || undefined, status, limit });
  return { ok: true, payments: await orderViews(deps.db, rows, deps.publicUrl()) };
}
