import type { Db } from "../db/database.ts";
import type { Delivery } from "../db/schema.ts";
import { type Failure, fail, type InvalidInput, invalidInput, isFailure, type Result } from "../lib/error-codes.ts";
import { parseJson } from "../lib/json.ts";
import { type RawQuery, single } from "../lib/query-params.ts";
import { rfc3339 } from "../lib/time.ts";
import { getDelivery, type ListPosition, listDeliveries, loggedAttemptCounts } from "./admin.ts";
import { DELIVERY_STATUSES, isDeliveryStatus } from "./status-terms.ts";
import { deliveriesWithBodies } from "./outbox.ts";

// The delivery log an account holder browses (the cabinet's deliveries page): newest first, paged
// both ways by cursors (a delivery id), narrowed by status. One row per delivery, its attempts
// counted; the attempts themselves are on the delivery's own page (delivery-detail.ts).

export type DeliveryLogQuery = {
  /** Deliveries older than this one (the next page down). */
  before?: string;
  /** Deliveries newer than this one (the page above). */
  after?: string;
  status?: string;
};

/** A delivery as the log lists it. */
export type DeliverySummary = {
  id: string;
  kind: string;
  replay: boolean;
  event_type: string;
  network: string;
  status: string;
  created_at: string;
  /** Logged attempts (admin.ts loggedAttemptCounts). */
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  /** Its body says `"removed": true`: it tells the receiver a reorg took its event back. */
  retraction: boolean;
};

/** One page, newest first, with the cursors of the pages around it (null: none there). */
export type DeliveryLogPage = { deliveries: DeliverySummary[]; newer: string | null; older: string | null };

/** Reads the log's query parameters (`before`, `after`, `status`); empty ones are left out. */
export function parseDeliveryLogQuery(query: RawQuery): Result<{ query: DeliveryLogQuery }, InvalidInput> {
  const q: Record<string, string> = {};
  for (const key of ["before", "after", "status"]) {
    const value = single(query, key);
    if (isFailure(value)) return value;
    if (value) q[key] = value;
  }
  if (q.before !== undefined && q.after !== undefined) return invalidInput("give before or after, not both");
  if (q.status !== undefined && !isDeliveryStatus(q.status))
    return invalidInput(`status must be one of ${DELIVERY_STATUSES.join(", ")}`);
  return { ok: true, query: { before: q.before, after: q.after, status: q.status } };
}

/** Whether a delivery's body is a retraction: an event a reorg removed, sent again with `"removed": true`. */
export function isRetraction(d: Pick<Delivery, "kind" | "body">): boolean {
  return d.kind !== "payment" && parseJson<{ removed?: unknown }>(d.body, {}).removed === true;
}

/**
 * One page of the account's deliveries, newest first. Without a cursor: the newest `limit`. With
 * `before`: the `limit` just older than that delivery. With `after`: the `limit` just newer; when
 * fewer than a page's worth remain above, the newest page instead (paging up ends where it began).
 * Keyset reads on (created_at, id), never an offset. A cursor that is not one of the account's
 * deliveries is a failure.
 */
export async function deliveryLog(db: Db, accountId: string, q: DeliveryLogQuery, limit: number): Promise<Result<DeliveryLogPage, InvalidInput>> {
  const read = (at: { before?: ListPosition; after?: ListPosition }) => listDeliveries(db, { accountId, status: q.status, limit: limit + 1, ...at });
  const page = async (rows: Delivery[], newer: string | null, older: string | null): Promise<DeliveryLogPage> => {
    const counts = await loggedAttemptCounts(db, rows.map((d) => d.id));
    return { deliveries: rows.map((d) => summary(d, counts.get(d.id) ?? 0)), newer, older };
  };
  const newest = async (): Promise<DeliveryLogPage> => {
    const rows = await read({});
    return page(rows.slice(0, limit), null, rows.length > limit ? rows[limit - 1].id : null);
  };
  const cursor = q.before ?? q.after;
  if (cursor === undefined) return { ok: true, ...(await newest()) };
  const at = await getDelivery(db, cursor);
  if (!at || at.account_id !== accountId) return invalidInput(`Unknown cursor: ${cursor}`);
  if (q.before !== undefined) {
    const rows = await read({ before: at });
    const shown = rows.slice(0, limit);
    return { ok: true, ...(await page(shown, shown.length > 0 ? shown[0].id : null, rows.length > limit ? shown[limit - 1].id : null)) };
  }
  const rows = await read({ after: at });
  if (rows.length <= limit) return { ok: true, ...(await newest()) };
  const shown = rows.slice(0, limit).reverse();
  return { ok: true, ...(await page(shown, shown[0].id, shown[shown.length - 1].id)) };
}

function summary(d: Delivery, attempts: number): DeliverySummary {
  return {
    id: d.id,
    kind: d.kind,
    replay: d.replay === 1,
    event_type: d.event_type,
    network: d.network,
    status: d.status,
    created_at: rfc3339(d.created_at),
    attempts,
    last_status_code: d.last_status_code,
    last_error: d.last_error,
    retraction: isRetraction(d),
  };
}

/** The account's deliveries of one event (its first delivery, a retraction, replays), newest first. */
export async function deliveriesOfEvent(db: Db, accountId: string, eventId: string): Promise<DeliverySummary[]> {
  // Found by the event's index alone, then kept to the account and ordered here: an event has a few
  // deliveries, but asked with the account and the order in SQL, SQLite's planner (no statistics)
  // walked all of the account's deliveries by their (account_id, created_at) index instead, 98 ms
  // a page at 200,000 of them.
  const rows = (await deliveriesWithBodies(db).where("event_id", "=", eventId).execute())
    .filter((d) => d.account_id === accountId)
    .sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  const counts = await loggedAttemptCounts(db, rows.map((d) => d.id));
  return rows.map((d) => summary(d, counts.get(d.id) ?? 0));
}

/**
 * Where one of the account's deliveries stands, for a page that follows it (the cabinet's webhook
 * Test): its status, its logged attempts, and the latest attempt's result in words (`succeeded:
 * HTTP 200 in 12 ms`, `failed, will retry: HTTP 500 in 3 ms`, or its error), null before the first
 * attempt. Another account's delivery is not found.
 */
export async function deliveryOutcome(
  deps: { db: Db },
  accountId: string,
  deliveryId: string,
): Promise<Result<{ outcome: { delivery_id: string; status: string; attempts: number; result: string | null } }, Failure<"DELIVERY_NOT_FOUND">>> {
  // One statement, so one snapshot: read apart, a settle landing between the delivery and its
  // attempts would pair the old status with the new attempt ("failed, will retry: HTTP 200").
  const d = await deps.db
    .selectFrom("deliveries as d")
    .leftJoin("delivery_attempts as a", (join) =>
      join.onRef("a.delivery_id", "=", "d.id").on("a.id", "=", (eb) => eb.selectFrom("delivery_attempts as l").whereRef("l.delivery_id", "=", "d.id").select((e) => e.fn.max("l.id").as("id"))),
    )
    .select((eb) => [
      "d.id",
      "d.status",
      "a.status_code",
      "a.error",
      "a.duration_ms",
      eb.selectFrom("delivery_attempts as n").whereRef("n.delivery_id", "=", "d.id").select((e) => e.fn.countAll<number | string>().as("n")).as("attempts"),
    ])
    .where("d.id", "=", deliveryId)
    .where("d.account_id", "=", accountId)
    .executeTakeFirst();
  if (!d) return fail("DELIVERY_NOT_FOUND");
  const attempts = Number(d.attempts ?? 0);
  const state = d.status === "pending" ? "failed, will retry" : d.status;
  const answer = attempts === 0 ? null : d.status_code !== null ? `HTTP ${d.status_code} in ${d.duration_ms} ms` : (d.error ?? "no answer");
  const result = answer === null ? null : `${state}: ${answer}`;
  return { ok: true, outcome: { delivery_id: d.id, status: d.status, attempts, result } };
}
