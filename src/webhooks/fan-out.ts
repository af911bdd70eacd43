import type { Executor } from "../db/database.ts";
import { type EnqueueInput, enqueueDelivery } from "../delivery/outbox.ts";
import { type EventFilters, parseStoredFilters, passesFilters } from "./filters.ts";

// Fan-out (docs/webhooks.md): which of an account's endpoints a webhook goes to, decided when it is
// queued. Each takes its own delivery (its own `dlv_` id, the same body), signed with its own
// secret, retried, paced and health-counted on its own: one endpoint down never delays another.
// A disabled endpoint (or one without a URL) gets nothing new. The ingest reads the endpoints
// before its write transaction (subscribersOf) and queues one delivery per endpoint that takes an
// event; payments queue each order's webhooks through queuePaymentWebhook.

/** An enabled endpoint with a URL, and the filters that decide what it takes. */
export type TargetEndpoint = { id: string; events: EventFilters };

/** Accounts per IN (…) list, far below SQLite's bound-parameter cap. */
const ACCOUNTS_PER_LIST = 500;

/** The enabled endpoints with a URL of these accounts, oldest first, by account (an account with none is absent). */
export async function subscribersOf(db: Executor, accountIds: readonly string[]): Promise<Map<string, TargetEndpoint[]>> {
  const out = new Map<string, TargetEndpoint[]>();
  for (let at = 0; at < accountIds.length; at += ACCOUNTS_PER_LIST) {
    const rows = await db
      .selectFrom("webhook_endpoints")
      .select(["id", "account_id", "filters"])
      .where("account_id", "in", accountIds.slice(at, at + ACCOUNTS_PER_LIST))
      .where("enabled", "=", 1)
      .where("url", "is not", null)
      .orderBy("account_id")
      .orderBy("id")
      .execute();
    for (const r of rows) {
      const list = out.get(r.account_id);
      const endpoint = { id: r.id, events: parseStoredFilters(r.filters) };
      if (list) list.push(endpoint);
      else out.set(r.account_id, [endpoint]);
    }
  }
  return out;
}

/** The endpoints whose filters take an address-watch event of `type` (and `direction`) on `network`. */
export function endpointsTaking(endpoints: readonly TargetEndpoint[], type: string, direction: "in" | "out" | null, network: string): TargetEndpoint[] {
  return endpoints.filter((e) => passesFilters(e.events, type, direction, network));
}

/**
 * Where a payment-order webhook of the account goes: the payments URL when one is set (a row
 * without endpoint, signed with the default endpoint's secret), else every enabled endpoint with a
 * URL and `payment_order` on. When none takes it, it is still queued once, for the payments URL:
 * the order's webhooks are its history (payments/timeline.ts), and a payments URL set before it is
 * sent still receives it; without one its attempts fail (`no webhook URL`) like any delivery with
 * nowhere to go, and a recovery sends it once a receiver is set.
 */
export async function paymentOrderTargets(db: Executor, accountId: string, paymentsUrlSet: boolean): Promise<(string | null)[]> {
  if (paymentsUrlSet) return [null];
  const endpoints = (await subscribersOf(db, [accountId])).get(accountId) ?? [];
  const taking = endpoints.filter((e) => e.events.payment_order).map((e) => e.id);
  return taking.length > 0 ? taking : [null];
}

/** A payment-order webhook to queue: one order's state (or late payment) and its lifecycle position. */
export type PaymentWebhook = Omit<EnqueueInput, "endpointId" | "kind" | "eventType">;

/**
 * Queues a payment-order webhook to each of its targets (paymentOrderTargets), in the caller's
 * transaction (the order's); the same body and lifecycle `sequence` for each, so each endpoint
 * gets the order's webhooks one at a time, in order. Returns their ids, the first target's first.
 */
export async function queuePaymentWebhook(db: Executor, webhook: PaymentWebhook, paymentsUrlSet: boolean): Promise<string[]> {
  const ids: string[] = [];
  for (const endpointId of await paymentOrderTargets(db, webhook.accountId, paymentsUrlSet)) {
    ids.push(await enqueueDelivery(db, { ...webhook, endpointId, kind: "payment", eventType: "payment_order" }));
  }
  return ids;
}
