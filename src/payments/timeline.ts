import type { Executor } from "../db/database.ts";
import { loggedAttemptCounts } from "../delivery/admin.ts";
import { paymentWebhooks } from "../delivery/outbox.ts";
import { parseJson } from "../lib/json.ts";
import { rfc3339 } from "../lib/time.ts";
import type { PaymentStatus } from "./lifecycle.ts";

/** One step of an order's lifecycle: the state it entered (or a late payment to its wallet address), when, and how its webhook fared. */
export type TimelineStep = {
  state: PaymentStatus | "late_payment";
  /** A late payment taken back after a reorg. */
  removed: boolean;
  at: string;
  tx_hash: string | null;
  delivery: { id: string; status: string; attempts: number };
};

/**
 * An order's lifecycle after `pending`, oldest first. Every state an order announces has exactly
 * one outbox row, written in the transaction that entered it (payments/transitions.ts) and
 * numbered by `sequence`, so the outbox is the order's history and nothing else needs to record
 * it. Silent moves (back to `pending` after a reorg, into a state announced before) add no step.
 */
export async function orderTimeline(db: Executor, accountId: string, paymentId: string): Promise<TimelineStep[]> {
  const rows = await paymentWebhooks(db, accountId, paymentId);
  const attempts = await loggedAttemptCounts(db, rows.map((r) => r.id));
  return rows.map((r) => {
    const body = parseJson<{ event?: PaymentStatus | "late_payment"; tx_hash?: string | null; removed?: boolean; late_payment?: { tx_hash: string } }>(r.body, {});
    return {
      state: body.event ?? "pending",
      removed: body.removed === true,
      at: rfc3339(r.created_at),
      // A late payment's own transaction, not the one that moved the order.
      tx_hash: body.late_payment?.tx_hash ?? body.tx_hash ?? null,
      delivery: { id: r.id, status: r.status, attempts: attempts.get(r.id) ?? 0 },
    };
  });
}
