import type { Executor } from "../db/database.ts";
import type { Delivery } from "../db/schema.ts";
import { type NewNotice, raiseOnce } from "../notices/notices.ts";

// What the delivery engine tells an account holder (written through notices/): a delivery that
// used up its attempts (the settlement), and deliveries held because the credits cannot pay (the
// claim). Both are resolved where their cause ends: a re-queue (admin.ts, recover.ts), credits
// added (outbox.ts, resumePausedDeliveries).

/** The notice of a delivery that used up its attempts and is now `failed`. */
export function deliveryFailedNotice(
  d: Pick<Delivery, "id" | "account_id" | "event_type" | "network">,
  attempts: number,
  error: string | null,
  nowMs: number,
): NewNotice {
  const last = error === null ? "" : `; last error: ${error}`;
  return {
    accountId: d.account_id,
    type: "delivery_failed",
    message: `Delivery ${d.id} (${d.event_type} on ${d.network}) failed after ${attempts} attempt${attempts === 1 ? "" : "s"}${last}. It can be sent again.`,
    deliveryId: d.id,
    createdAt: nowMs,
  };
}

/** An account whose deliveries a claim just held for lack of credits, with what the first of them costs. */
export type HeldForCredits = { accountId: string; eventType: string; price: number; balance: number };

/** The notice of an account whose deliveries wait because its balance cannot pay the first of them. */
export function creditsExhaustedNotice(h: HeldForCredits, nowMs: number): NewNotice {
  return {
    accountId: h.accountId,
    type: "credits_exhausted",
    message:
      `Webhook deliveries are held: a ${h.eventType} delivery costs ${h.price} credit${h.price === 1 ? "" : "s"} and the balance is ${h.balance}. ` +
      "Nothing is lost: held deliveries wait and go out once credits are added.",
    deliveryId: null,
    createdAt: nowMs,
  };
}

/**
 * Raises `credits_exhausted` for each account held, in the caller's transaction, unless the
 * account has one open already (from this daemon or another). Returns the accounts whose notice
 * this call wrote, so each hold is logged once, by the daemon that raised it.
 */
export async function raiseCreditsExhausted(db: Executor, held: readonly HeldForCredits[], nowMs: number): Promise<HeldForCredits[]> {
  const raised = new Set((await raiseOnce(db, held.map((h) => creditsExhaustedNotice(h, nowMs)))).map((n) => n.accountId));
  return held.filter((h) => raised.has(h.accountId));
}
