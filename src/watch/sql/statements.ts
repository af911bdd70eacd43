import type { CompiledQuery } from "kysely";
import type { NewEvent, Watch } from "../../db/schema.ts";

// The hot-path statements of `events` (why hand-written: `src/db/statements.ts`): what each does,
// here; each dialect's text in `sqlite.ts` and `postgres.ts` beside this file, which bind the same
// parameters, built here once for both.

/** An event as a listing reads it (bigint columns arrive as numbers on both databases: the PostgreSQL pool parses them). */
export type ListedEventRow = { seq: number; id: string; type: string; network: string; body: string; block_height: number | null };

/** A block subscription as a listing reads it. */
export type SubscriptionRow = { network: string; from_seq: number; until_seq: number | null };

/**
 * The hand-written statements of `events` and of the block subscriptions listings read: an API
 * client's poll (`GET /v1/address-watch/events?after=…`) runs the reads below on every call, and
 * building them cost more than SQLite spends running them. Those over a list take at most what
 * their caller chunks them to.
 */
export type EventStatements = {
  /** One multi-row INSERT of events, `seq` following the given order. */
  insertEvents(rows: readonly NewEvent[]): CompiledQuery;
  /** Where the event `id` stands: its seq, account (or the shared one) and network; no row when unknown. */
  selectEventPosition(id: string): CompiledQuery<{ seq: number; account_id: string; network: string }>;
  /** Up to `limit` events of `accountId` after `afterSeq`, oldest first. */
  selectEventsAfter(accountId: string, afterSeq: number, limit: number): CompiledQuery<ListedEventRow>;
  /** The same on one network (the shared block events' account's, say), and before `untilSeq` when given. */
  selectNetworkEventsAfter(accountId: string, network: string, afterSeq: number, untilSeq: number | null, limit: number): CompiledQuery<ListedEventRow>;
  /** The account's block subscriptions (of one network, when given) still open, or closed after `afterSeq` + 1. */
  selectSubscriptions(accountId: string, network: string | null, afterSeq: number): CompiledQuery<SubscriptionRow>;
};

/** The parameters of a subscriptions read: the account, the seq a closed subscription must end after (`afterSeq` + 1), and the network when given. */
export function subscriptionParams(accountId: string, network: string | null, afterSeq: number): unknown[] {
  return network === null ? [accountId, afterSeq + 1] : [accountId, afterSeq + 1, network];
}

/** The parameters of a read of one network's events: `untilSeq` bound only when given. */
export function networkEventParams(accountId: string, network: string, afterSeq: number, untilSeq: number | null, limit: number): unknown[] {
  return untilSeq === null ? [accountId, network, afterSeq, limit] : [accountId, network, afterSeq, untilSeq, limit];
}

/** What a listing reads of an event. */
export const LISTED_COLUMNS = "seq, id, type, network, body, block_height";

/** The columns an event insert writes, in the order `eventParams` binds them. */
export const EVENT_COLUMNS = "id, account_id, type, network, watch_id, dedupe_key, body, created_at, block_height, block_hash";

/** The parameters of a multi-row INSERT of events: ten a row, as EVENT_COLUMNS names them. */
export function eventParams(rows: readonly NewEvent[]): unknown[] {
  const params: unknown[] = [];
  for (const r of rows) params.push(r.id, r.account_id, r.type, r.network, r.watch_id ?? null, r.dedupe_key, r.body, r.created_at, r.block_height ?? null, r.block_hash ?? null);
  return params;
}

/**
 * The hand-written statements of adding one watch (POST /v1/address-watch/addresses): built by
 * Kysely they were a third of an add's CPU.
 */
export type WatchStatements = {
  /** The account's watch of `address` on `network`: no row when none. */
  selectWatchAt(accountId: string, network: string, address: string): CompiledQuery<Watch>;
  /** The account's plan's address slots, and how many the account uses (its kept count of watches). */
  selectSlots(accountId: string): CompiledQuery<{ slots: number; used: number }>;
  /** Writes a new watch. */
  insertWatch(watch: Watch): CompiledQuery;
  /** Adds `by` (negative: takes away) to the account's count of watches, making its row when it has none. */
  addToWatchCount(accountId: string, by: number): CompiledQuery;
};

/** The parameters of a watch's insert: id, account_id, network, address, created_at. */
export function watchParams(w: Watch): unknown[] {
  return [w.id, w.account_id, w.network, w.address, w.created_at];
}
