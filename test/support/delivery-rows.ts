import type { Insertable } from "kysely";
import type { Executor } from "../../src/db/database.ts";
import type { DeliveriesTable, Delivery } from "../../src/db/schema.ts";

/**
 * An outbox row as the outbox stores it, for tests and benches that fill the outbox directly: a
 * webhook of an address watch (`event`) or of a payment order (`payment`), queued a second before
 * `at` and, unless still `pending`, settled at `at` with a 200.
 */
export function storedDelivery(f: { id: string; accountId: string; kind: "event" | "payment"; status: "succeeded" | "failed" | "pending"; at: number; body?: string }): Omit<Delivery, "replay"> {
  const settled = f.status !== "pending";
  return {
    id: f.id,
    account_id: f.accountId,
    endpoint_id: null,
    kind: f.kind,
    event_type: f.kind === "payment" ? "payment_order" : "payment",
    network: "eth",
    event_id: null,
    payment_id: null,
    sequence: null,
    body: f.body ?? "{}",
    status: f.status,
    hold_until_height: null,
    attempts: settled ? 1 : 0,
    next_attempt_at: f.at - 1000,
    lease_until: null,
    last_status_code: settled ? 200 : null,
    last_error: null,
    credits_charged: 0,
    created_at: f.at - 1000,
    updated_at: f.at,
    completed_at: settled ? f.at : null,
  };
}

/** Writes outbox rows built whole (each with its body), as the outbox would: the rows to `deliveries`, their bodies to `delivery_bodies`. */
export async function insertDeliveryRows(db: Executor, rows: readonly (Insertable<DeliveriesTable> & { body: string })[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto("deliveries")
    .values(rows.map(({ body: _, ...row }) => row))
    .execute();
  await db
    .insertInto("delivery_bodies")
    .values(rows.map((r) => ({ delivery_id: r.id, body: r.body })))
    .execute();
}
