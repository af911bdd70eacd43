import { sql } from "kysely";
import type { Executor } from "../db/database.ts";
import { STATUS_IS, UNSETTLED } from "./status-terms.ts";

// What the owner of the webhook endpoints (webhooks/) asks of the outbox about one endpoint: how
// many of its deliveries wait or failed, what waited for it to go out once it is switched on, and
// what becomes of its unfinished deliveries when it is removed. Each runs in the caller's
// transaction; the account's outbox index (account_id, created_at) finds the endpoint's rows.

/** An endpoint and its account. */
export type EndpointOf = { accountId: string; endpointId: string };

/** How many of the endpoint's address-watch deliveries are in `status` (its health's `pending` and `failed`). */
export async function countEndpointDeliveries(db: Executor, e: EndpointOf, status: "pending" | "failed"): Promise<number> {
  const r = await db
    .selectFrom("deliveries")
    .select((eb) => eb.fn.countAll().as("n"))
    .where("account_id", "=", e.accountId)
    .where("endpoint_id", "=", e.endpointId)
    // Spelt as literals so SQLite can use the partial index of failed rows.
    .where(STATUS_IS[status])
    .where("kind", "=", "event")
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** How many of the account's deliveries wait `paused` because its credits cannot pay for them (whatever endpoint they go to). */
export async function heldForCredits(db: Executor, accountId: string): Promise<number> {
  const r = await db
    .selectFrom("deliveries")
    .select((eb) => eb.fn.countAll().as("n"))
    .where("account_id", "=", accountId)
    .where(STATUS_IS.paused)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/**
 * Makes the endpoint's pending deliveries due now: call it in the transaction that switches it on
 * again (or points it elsewhere), so what waited for it (claim.ts parks rows of a disabled
 * endpoint) and what was waiting out a retry go out on the loop's next tick instead of hours later.
 */
export async function sendWaitingDeliveries(db: Executor, e: EndpointOf, nowMs: number): Promise<void> {
  await db
    .updateTable("deliveries")
    // A row waiting for a slot of the endpoint's rate limit (claim.ts, deferToSlots) is leased until
    // it: that lease goes too, and the row is placed again.
    .set({ next_attempt_at: nowMs, lease_until: sql<number | null>`case when lease_until = next_attempt_at then null else lease_until end`, updated_at: nowMs })
    .where("account_id", "=", e.accountId)
    .where("endpoint_id", "=", e.endpointId)
    .where(STATUS_IS.pending)
    .where("next_attempt_at", ">", nowMs)
    .execute();
}

/** What an unfinished delivery of a removed endpoint reads as: its last error. */
export const ENDPOINT_REMOVED = "endpoint removed";

/**
 * Ends the unfinished deliveries (pending, held, paused) of an endpoint being removed, in the
 * caller's transaction: each becomes `failed` with last error ENDPOINT_REMOVED, unattempted, and
 * stays listed (a payment-order webhook stays its order's history). No notice: the account holder
 * removed it. A row leased and in flight settles as it finds itself (no longer pending: not recorded).
 */
export async function endRemovedEndpointDeliveries(db: Executor, e: EndpointOf, nowMs: number): Promise<number> {
  const result = await db
    .updateTable("deliveries")
    .set({ status: "failed", lease_until: null, last_error: ENDPOINT_REMOVED, last_status_code: null, completed_at: nowMs, updated_at: nowMs })
    .where("account_id", "=", e.accountId)
    .where("endpoint_id", "=", e.endpointId)
    .where(UNSETTLED)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
