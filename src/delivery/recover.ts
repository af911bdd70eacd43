import { type Static, Type as T } from "@sinclair/typebox";
import { sql } from "kysely";
import type { Db, Executor } from "../db/database.ts";
import type { Clock } from "../lib/clock.ts";
import { type InvalidInput, invalidInput, type Result } from "../lib/error-codes.ts";
import { unixSecondsSchema } from "../lib/time.ts";
import { checkBody } from "../lib/value-errors.ts";
import { yieldToEventLoop } from "../lib/yield.ts";
import { resolveNotices } from "./notices.ts";

// Recovery after a long outage (docs/webhooks.md): the deliveries that used up their attempts
// while the receiver was down go out again, as they were, once the receiver is back.

/** The most deliveries one recovery re-queues; `more` says when the range holds others. */
export const MAX_RECOVERED_PER_CALL = 10_000;

/** The body of POST /v1/address-watch/webhook/recover. */
export const RecoverSchema = T.Object(
  {
    since: unixSecondsSchema("Unix seconds: deliveries queued at or after this instant"),
    until: T.Optional(unixSecondsSchema("Unix seconds: deliveries queued before this instant; default now")),
  },
  { additionalProperties: false },
);

export type RecoverBody = Static<typeof RecoverSchema>;

/** How many deliveries were re-queued, and whether failed ones remain in the range (call again). */
export type Recovered = { requeued: number; more: boolean };

export type RecoverDeps = {
  db: Db;
  clock: Clock;
  /** Called when something was re-queued, so the delivery loop sends it at once. */
  wakeDelivery: () => void;
};

/** The kinds a recovery re-queues: the account's address-watch and payment-order webhooks, never tests. */
const RECOVERED_KINDS = ["event", "payment"];

/**
 * Re-queues the account's `failed` address-watch and payment-order deliveries queued in
 * [since, until) (until: now), oldest first, at most MAX_RECOVERED_PER_CALL: each goes back to
 * `pending` with its attempt count at 0, so the whole retry schedule applies again, keeping its id
 * and body (receivers deduplicate on `webhook-id`), and its `delivery_failed` notice is resolved. A delivery already re-queued is pending, so a
 * second call re-queues only what failed again since. Charged like any delivery, on success.
 */
export async function recoverFailedDeliveries(deps: RecoverDeps, accountId: string, body: unknown): Promise<Result<Recovered, InvalidInput>> {
  const checked = checkBody(RecoverSchema, body);
  if (!checked.ok) return checked;
  const nowMs = deps.clock.now();
  const { since, until } = checked.body;
  if (since * 1000 > nowMs) return invalidInput("since must not be in the future");
  if (until !== undefined && until <= since) return invalidInput("until must be after since");
  const range = { fromMs: since * 1000, beforeMs: until === undefined ? nowMs + 1 : until * 1000 };
  const recovered = await requeueFailed(deps.db, accountId, range, nowMs);
  if (recovered.requeued > 0) deps.wakeDelivery();
  return { ok: true, ...recovered };
}

type Range = { fromMs: number; beforeMs: number };

/** Rows per UPDATE: three parameters each, far below SQLite's bound-parameter cap; a few ms each. */
const ROWS_PER_UPDATE = 250;

/**
 * The re-queue: the ids in order first, then a few UPDATEs by primary key (a statement joining the
 * range to itself let PostgreSQL's planner, misjudging a freshly failed batch, rescan the range
 * once per row), each a short transaction of its own with the event loop let run in between: a
 * recovery holds neither SQLite's one writer nor the thread (its driver answers synchronously) for
 * long, so other accounts' ingests and deliveries go on meanwhile. Each row moves from `failed` to
 * `pending` once, whichever transaction moves it. The claim takes due rows in `next_attempt_at`
 * order, so the re-queued rows get distinct due times one millisecond apart in the order they were
 * queued, the newest due now: they go out oldest first on every dialect.
 */
async function requeueFailed(db: Db, accountId: string, range: Range, nowMs: number): Promise<Recovered> {
  const found = await failedInRange(db, accountId, range).select("id").orderBy("created_at").orderBy("id").limit(MAX_RECOVERED_PER_CALL + 1).execute();
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
      await resolveNotices(trx, { type: "delivery_failed", accountIds: [accountId], deliveryIds: chunk }, nowMs);
      return updated;
    });
    requeued += Number(result.numUpdatedRows);
  }
  return { requeued, more: found.length > ids.length };
}

/** The account's failed, recoverable deliveries queued in the range, on the partial index deliveries_failed. */
function failedInRange(db: Executor, accountId: string, range: Range) {
  return (
    db
      .selectFrom("deliveries")
      .where("account_id", "=", accountId)
      // Spelt as a literal so SQLite uses the partial index deliveries_failed.
      .where(sql<boolean>`status = 'failed'`)
      .where("created_at", ">=", range.fromMs)
      .where("created_at", "<", range.beforeMs)
      .where("kind", "in", RECOVERED_KINDS)
  );
}
