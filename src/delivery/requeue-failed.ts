import { type ExpressionBuilder, sql } from "kysely";
import type { Db, Executor } from "../db/database.ts";
import { STATUS_IS } from "./status-terms.ts";
import type { DB } from "../db/schema.ts";
import { yieldToEventLoop } from "../lib/yield.ts";
import { resolveNotices } from "../notices/notices.ts";

// The outbox side of a recovery after a long outage (webhooks/recover.ts has the use case): the
// failed deliveries of a period put back in the queue, as they were.

/** The most deliveries one recovery re-queues; `more` says when the range holds others. */
export const MAX_RECOVERED_PER_CALL = 10_000;

/** How many deliveries were re-queued, and whether failed ones remain in the range (call again). */
export type Recovered = { requeued: number; more: boolean };

/**
 * Whose failed deliveries: every one of the account's, or those to some of its endpoints (and,
 * with `paymentsUrl`, the payment-order webhooks to its payments URL).
 */
export type RecoverScope = { accountId: string; endpoints: "all" | { ids: readonly string[]; paymentsUrl: boolean } };

/** Queued at or after `fromMs`, before `beforeMs`. */
export type Range = { fromMs: number; beforeMs: number };

/** The kinds a recovery re-queues: address-watch and payment-order webhooks, never tests. */
const RECOVERED_KINDS = ["event", "payment"];

/** Rows per UPDATE: three parameters each, far below SQLite's bound-parameter cap; a few ms each. */
const ROWS_PER_UPDATE = 250;

/**
 * Re-queues the scope's `failed` address-watch and payment-order deliveries queued in the range,
 * oldest first, at most MAX_RECOVERED_PER_CALL: each goes back to `pending` with its attempt count
 * at 0, so the whole retry schedule applies again, keeping its id and body (receivers deduplicate
 * on `webhook-id`), and its `delivery_failed` notice is resolved. A delivery already re-queued is
 * pending, so a second call re-queues only what failed again since.
 *
 * The ids in order first, then a few UPDATEs by primary key (a statement joining the range to
 * itself let PostgreSQL's planner, misjudging a freshly failed batch, rescan the range once per
 * row), each a short transaction of its own with the event loop let run in between: a recovery
 * holds neither SQLite's one writer nor the thread (its driver answers synchronously) for long, so
 * other accounts' ingests and deliveries go on meanwhile. Each row moves from `failed` to `pending`
 * once, whichever transaction moves it. The claim takes due rows in `next_attempt_at` order, so
 * the re-queued rows get distinct due times one millisecond apart in the order they were queued,
 * the newest due now: they go out oldest first on every dialect.
 */
export async function requeueFailed(db: Db, scope: RecoverScope, range: Range, nowMs: number): Promise<Recovered> {
  const found = await failedInRange(db, scope, range).select("id").orderBy("created_at").orderBy("id").limit(MAX_RECOVERED_PER_CALL + 1).execute();
  const ids = found.slice(0, MAX_RECOVERED_PER_CALL).map((r) => r.id);
  const firstDue = nowMs - ids.length + 1;
  let requeued = 0;
  for (let at = 0; at < ids.length; at += ROWS_PER_UPDATE) {
    if (at > 0) await yieldToEventLoop();
    const chunk = ids.slice(at, at + ROWS_PER_UPDATE);
    // The cast gives PostgreSQL the column's type for the untyped parameters.
    const dueAt = sql<number>`case id ${sql.join(
      chunk.map((id, i) => sql`when ${id} then cast(${firstDue + at + i} as bigint)`),
      sql` `,
    )} end`;
    const result = await db.transaction().execute(async (trx) => {
      const updated = await trx
        .updateTable("deliveries")
        .set({ status: "pending", attempts: 0, next_attempt_at: dueAt, lease_until: null, completed_at: null, updated_at: nowMs })
        .where("id", "in", chunk)
        // Another recovery committed first (several daemons): its rows are pending now, not counted
        // twice. Spelt so no status index can serve it: the planner keeps to the primary key even
        // when its statistics predate the outage's failed rows (it walked them all per UPDATE).
        .where(sql<boolean>`coalesce(status, '') = 'failed'`)
        .executeTakeFirst();
      // Each of them was failed when found: re-queued now (here or by the other recovery), its notice's cause has ended.
      await resolveNotices(trx, { type: "delivery_failed", accountIds: [scope.accountId], deliveryIds: chunk }, nowMs);
      return updated;
    });
    requeued += Number(result.numUpdatedRows);
  }
  return { requeued, more: found.length > ids.length };
}

/** The scope's failed, recoverable deliveries queued in the range, on the partial index deliveries_failed. */
function failedInRange(db: Executor, scope: RecoverScope, range: Range) {
  const { endpoints } = scope;
  return (
    db
      .selectFrom("deliveries")
      .where("account_id", "=", scope.accountId)
      // Spelt as a literal so SQLite uses the partial index deliveries_failed.
      .where(STATUS_IS.failed)
      .where("created_at", ">=", range.fromMs)
      .where("created_at", "<", range.beforeMs)
      .where("kind", "in", RECOVERED_KINDS)
      .$if(endpoints !== "all", (q) => q.where((eb: ExpressionBuilder<DB, "deliveries">) => toEndpoints(eb, endpoints as Exclude<typeof endpoints, "all">)))
  );
}

function toEndpoints(eb: ExpressionBuilder<DB, "deliveries">, e: { ids: readonly string[]; paymentsUrl: boolean }) {
  const parts = [];
  if (e.ids.length > 0) parts.push(eb("endpoint_id", "in", e.ids));
  if (e.paymentsUrl) parts.push(eb("endpoint_id", "is", null));
  return parts.length === 0 ? sql<boolean>`1 = 0` : eb.or(parts);
}
