import type { CompiledQuery, Insertable } from "kysely";
import type { DeliveriesTable, Delivery } from "../../db/schema.ts";
import type { AttemptLog } from "../send.ts";

// The hot-path statements of the outbox, `deliveries`, `delivery_bodies` and `delivery_attempts` (why hand-written:
// `src/db/statements.ts`): a delivery's claim and settlement. What each does, here; each dialect's
// text in `sqlite.ts` and `postgres.ts` beside this file, which bind the same parameters, built
// here once for both. The claim also reads what it needs of the batch's accounts (their balance and
// what /rpc has set aside of it, billing/sql/) and endpoints (their route and secrets): once per
// account and endpoint of the batch, not joined to every row (a batch is mostly one endpoint's rows).

/** The columns of a due row the claim reads, and the loop needs to send and settle it. */
const DUE_KEYS = ["id", "account_id", "endpoint_id", "kind", "event_type", "network", "attempts", "next_attempt_at", "lease_until", "replay"] as const;

/** DUE_KEYS as both dialects' claims select them, from the outbox row aliased `d`. */
export const DUE_ROW_COLUMNS = DUE_KEYS.map((k) => `d.${k}`).join(", ");

/** A due delivery, as the claim reads it: the columns of DUE_KEYS and its body. */
export type DueDelivery = Pick<Delivery, (typeof DUE_KEYS)[number] | "body">;

/** What a claim reads of an account its due rows belong to. */
export type ClaimAccount = {
  id: string;
  credits: number | string;
  /** Credits daemons have set aside of the balance for /rpc calls (billing/credit-leases.ts). */
  leased: number | string;
  payments_webhook_url: string | null;
  /** Set while an operator has the account disabled: its rows wait, paused (delivery/claim.ts). */
  disabled_at: number | string | null;
  /** Its endpoint with the smallest id, whose secret signs a row without endpoint (a payment-order webhook to the payments URL); null when it has none. */
  default_endpoint_id: string | null;
};

/** What a claim reads of an endpoint its due rows go to. A row's endpoint not found is gone. */
export type ClaimEndpoint = {
  id: string;
  url: string | null;
  enabled: number;
  /** The endpoint's own delivery rate limit; null: the config's `delivery.max_rps`. */
  max_rps: number | null;
  secret_enc: string;
  previous_secret_enc: string | null;
  previous_secret_expires_at: number | string | null;
};

/** A failed attempt's outcome: the row's next state. */
export type FailedAttempt = {
  id: string;
  status: "pending" | "failed";
  attempts: number;
  nextAttemptAt: number;
  statusCode: number | null;
  error: string | null;
};

/** One row of the attempt log. */
export type NewAttempt = AttemptLog & { deliveryId: string; attempt: number };

/**
 * The hand-written statements of the outbox, one set per dialect. Each returns a compiled query to
 * run with `executeQuery` on the database or a transaction. Statements over a list (IN lists,
 * multi-row inserts) take at most what their caller chunks them to: SQLite caps bound parameters.
 */
export type DeliveryStatements = {
  /** One multi-row INSERT of outbox rows, in the order given (the outbox writes a webhook per event and account as the ingest stores them). */
  insertDeliveries(rows: readonly NewDelivery[]): CompiledQuery;
  /** The same rows' bodies, one multi-row INSERT into `delivery_bodies`, in the same transaction. */
  insertBodies(rows: readonly NewDelivery[]): CompiledQuery;
  /**
   * Due live rows (or, with `replay`, due replayed rows) of existing accounts with their bodies, oldest due first, at most `limit`. A payment row waits while a lower sequence
   * of its payment to the same endpoint is still pending or paused. `next_attempt_at` is the only
   * sort key: the due index (status, replay, next_attempt_at) yields rows in that order (ties by insertion) and the scan stops at the limit.
   * The rows stay locked until the transaction ends, and rows another daemon is claiming are
   * passed over (nothing to lock on SQLite, whose write transactions run one at a time).
   */
  selectDueDeliveries(nowMs: number, limit: number, replay: boolean): CompiledQuery<DueDelivery>;
  /**
   * Live rows from the other end: due after `afterMs` (and by `nowMs`), most recently due first,
   * at most `limit`, locked and skipped like selectDueDeliveries. A claim whose oldest rows fill
   * its batch also takes some of these, so work queued now is not stuck behind an old backlog.
   */
  selectNewestDueDeliveries(afterMs: number, nowMs: number, limit: number): CompiledQuery<DueDelivery>;
  /** The claim's accounts, by id. */
  selectClaimAccounts(ids: readonly string[]): CompiledQuery<ClaimAccount>;
  /** The claim's endpoints, by id. */
  selectClaimEndpoints(ids: readonly string[]): CompiledQuery<ClaimEndpoint>;
  /** Leases claimed rows until `leaseUntil`. */
  leaseDeliveries(ids: readonly string[], leaseUntil: number): CompiledQuery;
  /** Pauses rows their account cannot pay for. */
  pauseDeliveries(ids: readonly string[], nowMs: number): CompiledQuery;
  /** Gives back a row's lease while it is still the one taken and the row still pending. */
  releaseLease(id: string, leaseUntil: number): CompiledQuery;
  /** Settles successes that share an answer and a price, each only while still pending; returns the ids settled. */
  markSucceeded(ids: readonly string[], statusCode: number | null, price: number, nowMs: number): CompiledQuery<{ id: string }>;
  /** Settles one failed attempt while the row is still pending (numAffectedRows says whether it was). */
  markFailed(f: FailedAttempt, nowMs: number): CompiledQuery;
  /** One multi-row INSERT into the attempt log. */
  insertAttempts(rows: readonly NewAttempt[]): CompiledQuery;
};

/** The columns of an attempt log row, in the order `attemptParams` binds them. */
export const ATTEMPT_COLUMNS = "delivery_id, attempt, url, started_at, duration_ms, status_code, error, response_snippet";

/** The parameters of a multi-row INSERT into the attempt log: eight a row, as ATTEMPT_COLUMNS names them. */
export function attemptParams(rows: readonly NewAttempt[]): unknown[] {
  const params: unknown[] = [];
  for (const r of rows) params.push(r.deliveryId, r.attempt, r.url, r.startedAt, r.durationMs, r.statusCode, r.error, r.snippet);
  return params;
}

/** The parameters of a failed attempt's settlement, in the order both dialects' texts name them. */
export function failedParams(f: FailedAttempt, nowMs: number): unknown[] {
  return [f.status, f.attempts, f.nextAttemptAt, f.statusCode, f.error, nowMs, f.status === "failed" ? nowMs : null, f.id];
}

/** An outbox row as the outbox writes it, every column of OUTBOX_COLUMNS, and the body it sends. */
export type NewDelivery = Insertable<DeliveriesTable> & Record<(typeof OUTBOX_KEYS)[number], unknown> & { body: string };

const OUTBOX_KEYS = [
  "id", "account_id", "endpoint_id", "kind", "event_type", "network", "event_id", "payment_id", "sequence", "status",
  "hold_until_height", "attempts", "next_attempt_at", "lease_until", "last_status_code", "last_error", "credits_charged",
  "created_at", "updated_at", "completed_at", "replay",
] as const;

/** The columns an outbox insert writes, in the order `deliveryParams` binds them. */
export const OUTBOX_COLUMNS = OUTBOX_KEYS.join(", ");
export const OUTBOX_WIDTH = OUTBOX_KEYS.length;

/** The parameters of a multi-row INSERT of outbox rows: OUTBOX_WIDTH a row, as OUTBOX_COLUMNS names them. */
export function deliveryParams(rows: readonly NewDelivery[]): unknown[] {
  const params: unknown[] = [];
  for (const r of rows) for (const k of OUTBOX_KEYS) params.push(r[k] ?? null);
  return params;
}

/** The parameters of a multi-row INSERT into `delivery_bodies` (delivery_id, body): two a row. */
export function bodyParams(rows: readonly NewDelivery[]): unknown[] {
  const params: unknown[] = [];
  for (const r of rows) params.push(r.id, r.body);
  return params;
}
