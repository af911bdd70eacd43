import type { Db } from "../db/database.ts";
import type { Delivery } from "../db/schema.ts";
import type { Clock } from "../lib/clock.ts";
import type { Failure, Result } from "../lib/error-codes.ts";
import { getDelivery, type RetryResult, retryDelivery } from "./admin.ts";

/**
 * An account holder's Resend (the cabinet): re-queues one of the account's own deliveries that has
 * not succeeded, and wakes the loop. Another account's delivery is not found.
 */
export async function resendAccountDelivery(
  deps: { db: Db; clock: Clock; wakeDelivery: () => void },
  accountId: string,
  deliveryId: string,
): Promise<Result<{ delivery: Delivery }, Failure<"DELIVERY_NOT_FOUND"> | Exclude<RetryResult, { ok: true }>>> {
  const d = await getDelivery(deps.db, deliveryId);
  if (!d || d.account_id !== accountId) return { ok: false, code: "DELIVERY_NOT_FOUND" };
  const retried = await retryDelivery(deps.db, d.id, deps.clock.now());
  if (!retried.ok) return retried;
  deps.wakeDelivery();
  return retried;
}
