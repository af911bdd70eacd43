import type { RawBuilder, Transaction } from "kysely";
import type { Db, Executor } from "./database.ts";
import { isPostgres } from "./dialect/detect.ts";
import { postgresPrimitives } from "./dialect/postgres/primitives.ts";
import { postgresRateWindows } from "./dialect/postgres/rate-windows.ts";
import { postgresSlidingBudget, type SlidingLease } from "./dialect/postgres/sliding-budget.ts";
import { sqlitePrimitives } from "./dialect/sqlite/primitives.ts";
import type { DB } from "./schema.ts";

// The invariants that SQLite gave for free (one writer: BEGIN IMMEDIATE serialises every write
// transaction) made explicit, so they hold with several daemons on PostgreSQL. Code calls these;
// each dialect folder implements them in its primitives.ts (no-ops on SQLite).

/** The order rows of `watches` were inserted in (SQLite's rowid; an identity column on PostgreSQL). */
export function insertionOrder(db: Executor): RawBuilder<unknown> {
  return isPostgres(db) ? postgresPrimitives.insertionOrder : sqlitePrimitives.insertionOrder;
}

/**
 * Locks an account for the rest of the transaction: a check-then-write on its rows (the slot cap,
 * one live order per address, a payment's transition sequence) cannot interleave with another.
 */
export function lockAccount(trx: Transaction<DB>, accountId: string): Promise<void> {
  return isPostgres(trx) ? postgresPrimitives.lockAccount(trx, accountId) : sqlitePrimitives.lockAccount();
}

/**
 * Runs the rest of the transaction alone among those serialised on the same `name`: for work whose
 * correctness needs commit order to match sequence order (events appended with seq = max + 1).
 */
export function serialize(trx: Transaction<DB>, name: string): Promise<void> {
  return isPostgres(trx) ? postgresPrimitives.serialize(trx, name) : sqlitePrimitives.serialize();
}

/**
 * The clause that turns a select of due work into a claim: rows locked until the transaction
 * commits, those another daemon holds skipped (`FOR UPDATE OF alias SKIP LOCKED` on PostgreSQL;
 * nothing on SQLite, whose write transactions run one at a time).
 */
export function claimLockClause(db: Executor, alias: string): string {
  return isPostgres(db) ? postgresPrimitives.claimLockClause(alias) : sqlitePrimitives.claimLockClause(alias);
}

/** Makes a claim of due rows read them in index order even when the planner's statistics are stale. */
export function orderedClaimPlan(trx: Transaction<DB>): Promise<void> {
  return isPostgres(trx) ? postgresPrimitives.orderedClaimPlan(trx) : sqlitePrimitives.orderedClaimPlan();
}

/** The budget of a per-second rate limit that every daemon on one database draws from (the webhooks' delivery rate). */
export type SharedRateBudget = {
  /** Takes up to `want` of `key`'s `limit` for the clock second `second`; resolves how many it got. */
  lease(key: string, second: number, want: number, limit: number): Promise<number>;
  /** Forgets the seconds before `second`. */
  prune(second: number): Promise<void>;
};

/**
 * The shared budget of the rate limits on PostgreSQL (a row per key and second); none on SQLite,
 * whose one daemon per file counts alone.
 */
export function sharedRateBudget(db: Db): SharedRateBudget | null {
  if (!isPostgres(db)) return null;
  return {
    lease: (key, second, want, limit) => postgresRateWindows.lease(db, key, second, want, limit),
    prune: (second) => postgresRateWindows.prune(db, second),
  };
}

export type { SlidingLease };

/** The sliding one-second budget of a rate limit that every daemon on one database draws from (the API's and /rpc's). */
export type SlidingRateBudget = {
  /** Replaces this holder's previous lease of a key by what it used and a new one; resolves what it was granted. */
  lease(lease: SlidingLease): Promise<{ granted: number; nextFreeMs: number | null }>;
  /** Forgets the keys with nothing counting any more. */
  prune(): Promise<void>;
};

/** The sliding budgets on PostgreSQL (a row of leases per key); none on SQLite, whose one daemon counts alone. */
export function slidingRateBudget(db: Db): SlidingRateBudget | null {
  if (!isPostgres(db)) return null;
  return {
    lease: (lease) => postgresSlidingBudget.lease(db, lease),
    prune: () => postgresSlidingBudget.prune(db),
  };
}
