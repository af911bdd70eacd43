import type { CompiledQuery } from "kysely";
import type { DialectName, Executor } from "./executor.ts";
import type { Delivery } from "./schema.ts";

// The hot paths (a delivery's claim and settlement, event inserts, usage, credit leases, the
// account snapshot) run hand-written SQL instead of a query built per call: at thousands of
// statements a second, building and compiling a query costs more than SQLite spends running it,
// and a text that never changes lets the driver reuse the database's compiled statement. Each
// dialect writes these statements out in its own SQL (`dialect/<name>/statements.ts`, the same
// names, its own placeholders and planner hints); the dialect a database is opened with brings its
// set along, and `statementsOf` hands it to the code that runs them. Nothing rewrites SQL text.

/**
 * A due delivery with its account's balance and its endpoint's route, as the claim reads it: the
 * row's endpoint, or for a row without one (a payment-order webhook to the payments URL) the
 * account's default endpoint, whose secret signs it. The endpoint columns are null when the
 * endpoint is gone.
 */
export type DueDelivery = Delivery & {
  account_credits: number | string;
  /** Credits daemons have set aside of the balance for /rpc calls (billing/credit-leases.ts). */
  account_leased: number | string;
  payments_webhook_url: string | null;
  /** Set while an operator has the account disabled: its rows wait, paused (delivery/claim.ts). */
  account_disabled_at: number | string | null;
  endpoint_url: string | null;
  endpoint_enabled: number | null;
  /** The endpoint's own delivery rate limit; null: the config's `delivery.max_rps`. */
  endpoint_max_rps: number | null;
  endpoint_secret_enc: string | null;
  endpoint_previous_secret_enc: string | null;
  endpoint_previous_secret_expires_at: number | string | null;
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
export type NewAttempt = {
  deliveryId: string;
  attempt: number;
  url: string | null;
  startedAt: number;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  snippet: string | null;
};

/**
 * The hand-written statements, one set per dialect. Each returns a compiled query to run with
 * `executeQuery` on the database or a transaction. Statements over a list (IN lists, multi-row
 * inserts) take at most what their caller chunks them to: SQLite caps bound parameters.
 */
export type Statements = {
  /**
   * Due live rows (or, with `replay`, due replayed rows) with their account's balance and their
   * endpoint's route, oldest due first, at most `limit`. A payment row waits while a lower sequence
   * of its payment to the same endpoint is still pending or paused. `next_attempt_at` is the only sort key: the due index (status, replay,
   * next_attempt_at) yields rows in that order (ties by insertion) and the scan stops at the limit.
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

/** What the adapter of a dialect opened by `openDatabase` carries besides Kysely's own: its statements. */
export type CarriesStatements = { readonly statements: Statements };

/**
 * The statements of the dialect `db` was opened with (a transaction shares its database's). The
 * set is chosen once, when the database is opened; this only reads it.
 */
export function statementsOf(db: Executor): Statements {
  const { statements } = db.getExecutor().adapter as Partial<CarriesStatements>;
  if (!statements) throw new Error("the database was not opened with openDatabase: no statements for its dialect");
  return statements;
}

/** What the adapter of a dialect opened by `openDatabase` carries besides Kysely's own: the dialect's name. */
export type CarriesDialect = { readonly dialect: DialectName };

/** A folder's hand-written statements, one set per dialect (`<folder>/sql/sqlite.ts`, `<folder>/sql/postgres.ts`). */
export type PerDialect<S> = { readonly [D in DialectName]: S };

/**
 * The dialect `db` was opened with (a transaction shares its database's), read off its adapter:
 * chosen once, when the database is opened.
 */
export function dialectOf(db: Executor): DialectName {
  const { dialect } = db.getExecutor().adapter as Partial<CarriesDialect>;
  if (!dialect) throw new Error("the database was not opened with openDatabase: no statements for its dialect");
  return dialect;
}

/** Hands the code that runs a folder's statements the set of the database's dialect. */
export function perDialect<S>(sets: PerDialect<S>): (db: Executor) => S {
  return (db) => sets[dialectOf(db)];
}
