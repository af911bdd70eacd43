import type { Executor } from "../db/database.ts";
import { inTransaction } from "../db/executor.ts";
import { STATUS_IS, UNSETTLED } from "./status-terms.ts";
import { newTimeOrderedId } from "../lib/ids.ts";
import { resolveNotices } from "../notices/notices.ts";
import { deliveryStatements } from "./sql/dialects.ts";
import type { NewDelivery } from "./sql/statements.ts";

// The outbox (docs/webhooks.md): what the rest of chainwatch may do to `deliveries` and the
// bodies they send (`delivery_bodies`: written once, never updated, deleted with their row). Each
// function runs in the caller's transaction, so a webhook row commits or rolls back with the event
// or state change it announces: that is what makes delivery at-least-once across a crash. A row is
// enqueued `pending` (or `held` until its block has enough confirmations), then the loop claims it
// (claim.ts), sends it (send.ts) and records the outcome (settle.ts); `paused` while its account
// cannot pay. The operator's list and retry are in admin.ts.

/** What gets delivered: `event` (address watch), `payment` (payment order) or `test`. */
export type DeliveryKind = "event" | "payment" | "test";

export type EnqueueInput = {
  accountId: string;
  /** The webhook endpoint it goes to; null: the account's payments URL (a payment-order webhook). Chosen by webhooks/fan-out.ts. */
  endpointId: string | null;
  kind: DeliveryKind;
  /** payment · payout · other · block · payment_order: decides the price. */
  eventType: string;
  network: string;
  eventId?: string | null;
  paymentId?: string | null;
  /** Lifecycle position: deliveries of one payment are sent strictly in this order. */
  sequence?: number | null;
  /** The exact body bytes, sent unchanged on every attempt. */
  body: string;
  nowMs: number;
  /** Defaults to a fresh time-ordered `dlv_…`; tests and payloads that embed the id pass it in. */
  id?: string;
  /** Writes the row `held` until the network's tip reaches this height (min_confirmations, watch/confirmations.ts). */
  holdUntilHeight?: number | null;
  /** A replay of a stored event (docs/webhooks.md): every attempt carries `X-Webhook-Replay: true`. */
  replay?: boolean;
  /** When the first attempt is due; `nowMs` unless given (a batch staggers it to be sent in order). */
  dueAt?: number;
};

/**
 * Writes one outbox row, due now (or held for confirmations). Call it in the same transaction as
 * the event or state change it announces.
 */
export async function enqueueDelivery(db: Executor, input: EnqueueInput): Promise<string> {
  const row = outboxRow(input);
  await writeRows(db, [row]);
  return row.id;
}

/** The rows and their bodies, in one transaction (the caller's, or one of their own when given the database). */
function writeRows(db: Executor, rows: readonly NewDelivery[]): Promise<void> {
  return inTransaction(db, async (trx) => {
    const statements = deliveryStatements(trx);
    await trx.executeQuery(statements.insertDeliveries(rows));
    await trx.executeQuery(statements.insertBodies(rows));
  });
}

/** Rows per multi-row INSERT: 200 × 21 columns (and 200 × 2 for their bodies) stays far below SQLite's bound-parameter cap. */
const ROWS_PER_INSERT = 200;

/**
 * Writes many outbox rows in a few multi-row INSERTs, in the order given (the ids follow it), and
 * returns their ids. Call it in the transaction that decides them, like enqueueDelivery.
 */
export async function enqueueDeliveries(db: Executor, inputs: readonly EnqueueInput[]): Promise<string[]> {
  const rows: ReturnType<typeof outboxRow>[] = [];
  let last = "";
  for (const input of inputs) {
    const row = outboxRow(input);
    // Ids made in the same microsecond order by their random part: draw again until this one sorts after the last.
    while (input.id === undefined && row.id <= last) row.id = newTimeOrderedId("dlv");
    last = row.id;
    rows.push(row);
  }
  await inTransaction(db, async (trx) => {
    for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) await writeRows(trx, rows.slice(i, i + ROWS_PER_INSERT));
  });
  return rows.map((r) => r.id);
}

function outboxRow(input: EnqueueInput): NewDelivery & { id: string } {
  return {
    id: input.id ?? newTimeOrderedId("dlv"),
    account_id: input.accountId,
    endpoint_id: input.endpointId,
    kind: input.kind,
    event_type: input.eventType,
    network: input.network,
    event_id: input.eventId ?? null,
    payment_id: input.paymentId ?? null,
    sequence: input.sequence ?? null,
    body: input.body,
    status: input.holdUntilHeight == null ? "pending" : "held",
    hold_until_height: input.holdUntilHeight ?? null,
    attempts: 0,
    next_attempt_at: input.dueAt ?? input.nowMs,
    lease_until: null,
    last_status_code: null,
    last_error: null,
    credits_charged: 0,
    created_at: input.nowMs,
    updated_at: input.nowMs,
    completed_at: null,
    replay: input.replay ? 1 : 0,
  };
}

/**
 * Makes the held deliveries the new tips reached `pending`, due now (docs/chains.md): one
 * range read per network on the held-rows index, never a scan of the pending outbox. Returns how many.
 */
export async function releaseHeldDeliveries(db: Executor, tips: ReadonlyMap<string, number>, nowMs: number): Promise<number> {
  let released = 0;
  for (const [network, tip] of tips) {
    const result = await db
      .updateTable("deliveries")
      .set({ status: "pending", next_attempt_at: nowMs, updated_at: nowMs })
      .where("network", "=", network)
      // Spelt as a literal so SQLite uses the partial index deliveries_held.
      .where(STATUS_IS.held)
      .where("hold_until_height", "<=", tip)
      .executeTakeFirst();
    released += Number(result.numUpdatedRows);
  }
  return released;
}

/**
 * The highest release height at or below `tip` of the deliveries held on `network`, or null: what
 * the upstream quorum must vouch for before they go out (ingest/quorum-heights.ts).
 */
export async function highestHeldRelease(db: Executor, network: string, tip: number): Promise<number | null> {
  const row = await db
    .selectFrom("deliveries")
    .select((eb) => eb.fn.max("hold_until_height").as("h"))
    .where("network", "=", network)
    // Spelt as a literal so SQLite uses the partial index deliveries_held.
    .where(STATUS_IS.held)
    .where("hold_until_height", "<=", tip)
    .executeTakeFirst();
  return row?.h === null || row?.h === undefined ? null : Number(row.h);
}

/** An event whose block was orphaned, with the body that says so (`"removed": true`). */
export type RetractedEvent = { id: string; type: string; network: string; body: string };

/**
 * The outbox side of retracting an event (docs/chains.md): every endpoint a delivery of it was let
 * out to (pending, sent, failed or paused) gets a NEW delivery with the removed body; deliveries
 * still held for min_confirmations are deleted, since the event never went out and its removal
 * does not go out either. Returns the removals queued and the held rows dropped.
 */
export async function retractEventDeliveries(
  db: Executor,
  e: RetractedEvent,
  nowMs: number,
): Promise<{ deliveries: number; dropped: number }> {
  const rows = await db
    .selectFrom("deliveries")
    .select(["id", "account_id", "endpoint_id", "status"])
    .where("event_id", "=", e.id)
    .where("kind", "=", "event")
    .orderBy("id")
    .execute();
  const held = rows.filter((d) => d.status === "held").map((d) => d.id);
  if (held.length > 0) {
    await db.deleteFrom("delivery_bodies").where("delivery_id", "in", held).execute();
    await db.deleteFrom("deliveries").where("id", "in", held).execute();
  }
  const targets = new Map<string | null, string>();
  for (const d of rows) if (d.status !== "held" && !targets.has(d.endpoint_id)) targets.set(d.endpoint_id, d.account_id);
  for (const [endpointId, accountId] of targets) {
    await enqueueDelivery(db, { accountId, endpointId, kind: "event", eventType: e.type, network: e.network, eventId: e.id, body: e.body, nowMs });
  }
  return { deliveries: targets.size, dropped: held.length };
}

/** Accounts per IN (…) list, far below SQLite's bound-parameter cap. */
const ACCOUNTS_PER_LIST = 500;

/**
 * Sends the deliveries paused for lack of credits of these accounts back to pending, due now, and
 * resolves their `credits_exhausted` notices: call it in the transaction that adds their credits,
 * so the loop (in this or another process) picks them up on its next tick. Should the credits
 * still fall short, the claim holds them again and raises a new notice.
 */
export async function resumePausedDeliveries(db: Executor, accountIds: readonly string[], nowMs: number): Promise<void> {
  for (let i = 0; i < accountIds.length; i += ACCOUNTS_PER_LIST) {
    await db
      .updateTable("deliveries")
      .set({ status: "pending", next_attempt_at: nowMs, updated_at: nowMs })
      .where("account_id", "in", accountIds.slice(i, i + ACCOUNTS_PER_LIST))
      .where(STATUS_IS.paused)
      .execute();
  }
  await resolveNotices(db, { type: "credits_exhausted", accountIds }, nowMs);
}

/**
 * The webhooks of one payment order, in lifecycle order (`sequence`), with how each fared: one row
 * per state the order announced, its delivery to the first endpoint it went to (the payments URL,
 * or the oldest endpoint; the same announcement to other endpoints is the same body). So this is
 * the order's announced history (payments/transitions.ts numbers the next one from it,
 * payments/timeline.ts shows it).
 */
export async function paymentWebhooks(db: Executor, accountId: string, paymentId: string) {
  const rows = await deliveriesWithBodies(db)
    .where("payment_id", "=", paymentId)
    .where("account_id", "=", accountId)
    .where("kind", "=", "payment")
    .orderBy("sequence")
    .orderBy("id")
    .execute();
  return rows.filter((r, i) => i === 0 || r.sequence !== rows[i - 1].sequence);
}

/**
 * Outbox rows with the bodies they send, to filter and order like `deliveries` itself (the body
 * table adds no column of the same name but `body`): each row's body found by key.
 */
export function deliveriesWithBodies(db: Executor) {
  return db.selectFrom("deliveries").innerJoin("delivery_bodies", "delivery_bodies.delivery_id", "deliveries.id").selectAll("deliveries").select("delivery_bodies.body");
}

/**
 * The ids of events a delivery still owes its receiver, as a subquery: event retention keeps those
 * events (watch/retention.ts). Deliveries carry their own body, so none depends on its event row.
 */
export function undeliveredEventIds(db: Executor) {
  return db.selectFrom("deliveries").select("event_id").where(UNSETTLED).where("event_id", "is not", null);
}
