import { type RawBuilder, sql } from "kysely";

/** Statuses of a delivery row (docs/webhooks.md), plus `held` for min_confirmations (docs/chains.md). */
export const DELIVERY_STATUSES = ["pending", "succeeded", "failed", "paused", "held"] as const;

export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Whether `s` names one of a delivery's states. */
export function isDeliveryStatus(s: string): s is DeliveryStatus {
  return (DELIVERY_STATUSES as readonly string[]).includes(s);
}

// A delivery's state as a condition of a query over the outbox, spelt as a literal. The outbox's
// partial indexes (the due index of rows still to be sent, the failed rows', the held rows') serve
// only a query whose condition implies their own, and neither SQLite nor PostgreSQL sees that
// through a bound parameter or an `in (…)` list.

/** `status = '<state>'` for each state. */
export const STATUS_IS: Record<DeliveryStatus, RawBuilder<boolean>> = {
  pending: sql<boolean>`status = 'pending'`,
  succeeded: sql<boolean>`status = 'succeeded'`,
  failed: sql<boolean>`status = 'failed'`,
  paused: sql<boolean>`status = 'paused'`,
  held: sql<boolean>`status = 'held'`,
};

/**
 * The states of a delivery still to be sent (held ones once their block is confirmed), as the due
 * index's own condition: a query that spells it reads that index.
 */
export const UNSETTLED = sql<boolean>`(status = 'pending' or status = 'held' or status = 'paused')`;
