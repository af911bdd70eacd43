import type { Db } from "../db/database.ts";
import { type Failure, fail, type InvalidInput, invalidInput, isFailure, type Result } from "../lib/error-codes.ts";
import { type RawQuery, single } from "../lib/query-params.ts";
import { unknownNetwork } from "../config/networks.ts";
import { type ListedEvent, listEventRows, receivedSeq } from "./events.ts";
import { EVENT_TYPES } from "./list-events.ts";

// The events log an account holder browses (the cabinet's events page): newest first, paged both
// ways by cursors (an event id), narrowed by type, network, address or transaction. The polling
// listing of the API (list-events.ts) reads the same rows oldest first.

/** The longest address or transaction hash a filter takes (the longest address any family stores). */
const MAX_FILTER_LENGTH = 128;

export type EventLogQuery = {
  /** Events older than this one (the next page down). */
  before?: string;
  /** Events newer than this one (the page above). */
  after?: string;
  type?: string;
  network?: string;
  address?: string;
  txHash?: string;
};

/** One page, newest first, with the cursors of the pages around it (null: none there). */
export type EventLogPage = { events: ListedEvent[]; newer: string | null; older: string | null };

/**
 * Reads the log's query parameters (`before`, `after`, `type`, `network`, `address`, `tx_hash`);
 * empty ones are left out, every mistake is a failure naming the parameter.
 */
export function parseEventLogQuery(query: RawQuery, isNetwork: (slug: string) => boolean): Result<{ query: EventLogQuery }, InvalidInput> {
  const q: Record<string, string> = {};
  for (const key of ["before", "after", "type", "network", "address", "tx_hash"]) {
    const value = single(query, key);
    if (isFailure(value)) return value;
    const trimmed = value?.trim();
    if (trimmed) q[key] = trimmed;
  }
  if (q.before !== undefined && q.after !== undefined) return invalidInput("give before or after, not both");
  if (q.type !== undefined && !EVENT_TYPES.includes(q.type)) return invalidInput(`type must be one of ${EVENT_TYPES.join(", ")}`);
  if (q.network !== undefined && !isNetwork(q.network)) return invalidInput(unknownNetwork(q.network));
  for (const key of ["address", "tx_hash"]) {
    if ((q[key]?.length ?? 0) > MAX_FILTER_LENGTH) return invalidInput(`${key} must be at most ${MAX_FILTER_LENGTH} characters`);
  }
  return { ok: true, query: { before: q.before, after: q.after, type: q.type, network: q.network, address: q.address, txHash: q.tx_hash } };
}

/**
 * One page of the account's events, newest first. Without a cursor: the newest `limit`. With
 * `before`: the `limit` just older than that event. With `after`: the `limit` just newer; when
 * fewer than a page's worth of newer ones remain, the newest page instead, so paging up ends on
 * the same first page a visitor started from. Every read is a range on the events' seq, never an
 * offset. A cursor the account never received is a failure, as in the polling listing.
 */
export async function eventLog(db: Db, accountId: string, q: EventLogQuery, limit: number): Promise<Result<EventLogPage, InvalidInput>> {
  const narrow = {
    accountId,
    limit,
    types: q.type === undefined ? undefined : [q.type],
    networks: q.network === undefined ? undefined : [q.network],
    address: q.address,
    txHash: q.txHash,
  };
  const newest = async (): Promise<EventLogPage> => {
    const { rows, more } = await listEventRows(db, { ...narrow, afterSeq: 0, order: "desc" });
    return { events: rows, newer: null, older: more ? rows[rows.length - 1].id : null };
  };
  const cursor = q.before ?? q.after;
  if (cursor === undefined) return { ok: true, ...(await newest()) };
  const seq = await receivedSeq(db, accountId, cursor);
  if (seq === null) return invalidInput(`Unknown cursor: ${cursor}`);
  if (q.before !== undefined) {
    const { rows, more } = await listEventRows(db, { ...narrow, afterSeq: 0, beforeSeq: seq, order: "desc" });
    // Above this page is at least the cursor's own event.
    return { ok: true, events: rows, newer: rows.length > 0 ? rows[0].id : null, older: more ? rows[rows.length - 1].id : null };
  }
  const { rows, more } = await listEventRows(db, { ...narrow, afterSeq: seq, order: "asc" });
  if (!more) return { ok: true, ...(await newest()) };
  const events = [...rows].reverse();
  return { ok: true, events, newer: events[0].id, older: events[events.length - 1].id };
}

/** One event the account received (its own, or a block event of its subscriptions), body as listed. */
export async function receivedEvent(db: Db, accountId: string, eventId: string): Promise<Result<{ event: ListedEvent }, Failure<"NOT_FOUND">>> {
  const seq = await receivedSeq(db, accountId, eventId);
  const event =
    seq === null
      ? undefined
      : await db.selectFrom("events").select(["seq", "id", "type", "network", "body", "block_height"]).where("id", "=", eventId).executeTakeFirst();
  if (!event) return fail("NOT_FOUND", "Event not found.");
  return { ok: true, event };
}
