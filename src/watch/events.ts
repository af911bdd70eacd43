import { sql } from "kysely";
import type { Db, Executor } from "../db/database.ts";
import type { NewEvent } from "../db/schema.ts";
import { receivedBlockEvent, SHARED, subscriptionsOf } from "./block-subscriptions.ts";
import { type InvalidInput, invalidInput } from "../lib/error-codes.ts";
import { randomBytes } from "../lib/random.ts";
import { eventStatements } from "./sql/dialects.ts";
import type { ListedEventRow } from "./sql/statements.ts";

// Rows per multi-row insert: 500 × 10 columns stays far below SQLite's bound-parameter cap.
const CHUNK = 500;

/**
 * A new event id, `evt_` + 24 hex like every id, but led by the batch time: the ids of one batch
 * then land together at the end of the unique index on events.id instead of on random pages.
 */
export function newEventId(nowMs: number): string {
  const random = randomBytes(6).toString("hex");
  return `evt_${nowMs.toString(16).padStart(12, "0")}${random}`;
}

/** The seq the next inserted event gets at the earliest (never reused: AUTOINCREMENT). */
export async function nextEventSeq(db: Executor): Promise<number> {
  const row = await db.selectFrom("events").select("seq").orderBy("seq", "desc").limit(1).executeTakeFirst();
  return (row?.seq ?? 0) + 1;
}

/**
 * Inserts events in the given order (their `seq`, and so the listing order, follows it). A
 * hand-written statement (sql/) rather than the query builder, which costs more per
 * value than SQLite's own insert.
 */
export async function insertEvents(trx: Executor, rows: readonly NewEvent[]): Promise<void> {
  const statements = eventStatements(trx);
  for (let i = 0; i < rows.length; i += CHUNK) {
    await trx.executeQuery(statements.insertEvents(rows.slice(i, i + CHUNK)));
  }
}

/** Those dedupe keys that already belong to a stored event. */
export async function existingDedupeKeys(db: Executor, keys: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (let i = 0; i < keys.length; i += CHUNK) {
    const rows = await db.selectFrom("events").select("dedupe_key").where("dedupe_key", "in", keys.slice(i, i + CHUNK)).execute();
    for (const r of rows) found.add(r.dedupe_key);
  }
  return found;
}

export type EventQuery = {
  accountId: string;
  /** An event id this account received; only later events are listed. */
  after: string | null;
  limit: number;
  type?: string;
  network?: string;
  watchId?: string;
};

/** Event bodies (exactly as delivered) and the cursor of the next page, null when nothing follows. */
export type EventPage = { ok: true; bodies: string[]; nextAfter: string | null } | InvalidInput;

/** A stored event as a listing reads it (the hand-written statements' row, sql/). */
export type ListedEvent = ListedEventRow;

/** What a listing reads: the events of one account after a position, narrowed. */
export type EventRowQuery = {
  accountId: string;
  /** Only events after this seq (0: from the first). */
  afterSeq: number;
  limit: number;
  types?: readonly string[];
  networks?: readonly string[];
  watchId?: string;
  /** Only events stored at or after this instant (ms). */
  createdFrom?: number;
  /** Only events stored before this instant (ms). */
  createdBefore?: number;
  /** Only events before this seq. */
  beforeSeq?: number;
  /** `desc`: the newest `limit` events of the range, newest first (default `asc`: the oldest, oldest first). */
  order?: "asc" | "desc";
  /** Only wallet events of this address, or of this transaction (their body's field, ASCII case aside). */
  address?: string;
  txHash?: string;
};

/**
 * One page of the events an account received, in insertion order: its own wallet events merged
 * with the shared block events of its subscriptions. An `after` the account never received
 * (unknown, another account's, or pruned) is an error, not an empty page: a poller must learn
 * that its cursor is gone.
 */
export async function listEvents(db: Db, q: EventQuery): Promise<EventPage> {
  let afterSeq = 0;
  if (q.after !== null) {
    const seq = await receivedSeq(db, q.accountId, q.after);
    if (seq === null) return invalidInput(`Unknown cursor: ${q.after}`);
    afterSeq = seq;
  }
  const { rows, more } = await listEventRows(db, {
    accountId: q.accountId,
    afterSeq,
    limit: q.limit,
    types: q.type === undefined ? undefined : [q.type],
    networks: q.network === undefined ? undefined : [q.network],
    watchId: q.watchId,
  });
  return { ok: true, bodies: rows.map((r) => r.body), nextAfter: more ? rows[rows.length - 1].id : null };
}

/**
 * Up to `limit` events an account received after `afterSeq`, in insertion order (its own merged
 * with the shared block events of its subscriptions), and whether more follow. Reads only.
 */
export async function listEventRows(db: Executor, q: EventRowQuery): Promise<{ rows: ListedEvent[]; more: boolean }> {
  if (q.types?.length === 0 || q.networks?.length === 0) return { rows: [], more: false };
  if (isPlainPoll(q)) return plainPoll(db, q);
  const want = q.limit + 1;
  const order = q.order ?? "asc";
  const columns = ["seq", "id", "type", "network", "body", "block_height"] as const;
  let own = db.selectFrom("events").select(columns).where("account_id", "=", q.accountId).where("seq", ">", q.afterSeq);
  if (q.beforeSeq !== undefined) own = own.where("seq", "<", q.beforeSeq);
  if (q.address !== undefined) own = own.where(bodyHas("address", q.address));
  if (q.txHash !== undefined) own = own.where(bodyHas("tx_hash", q.txHash));
  // One value is spelt `=`, so the listing's plan stays the one its index was built for.
  if (q.types !== undefined) own = q.types.length === 1 ? own.where("type", "=", q.types[0]) : own.where("type", "in", [...q.types]);
  if (q.networks !== undefined) own = q.networks.length === 1 ? own.where("network", "=", q.networks[0]) : own.where("network", "in", [...q.networks]);
  if (q.watchId !== undefined) own = own.where("watch_id", "=", q.watchId);
  if (q.createdFrom !== undefined) own = own.where("created_at", ">=", q.createdFrom);
  if (q.createdBefore !== undefined) own = own.where("created_at", "<", q.createdBefore);
  const rows: ListedEvent[] = await own.orderBy("seq", order).limit(want).execute();

  // Block events carry no watch, address or transaction of their own, and have type `block`.
  const blocksWanted =
    q.watchId === undefined && q.address === undefined && q.txHash === undefined && (q.types === undefined || q.types.includes("block"));
  if (blocksWanted) {
    const network = q.networks?.length === 1 ? q.networks[0] : undefined;
    const subscriptions = await subscriptionsOf(db, q.accountId, { network, afterSeq: q.afterSeq });
    for (const s of subscriptions.filter((s) => q.networks === undefined || q.networks.includes(s.network))) {
      let shared = db
        .selectFrom("events")
        .select(columns)
        .where("account_id", "=", SHARED)
        .where("network", "=", s.network)
        .where("seq", ">", Math.max(q.afterSeq, s.fromSeq - 1));
      if (s.untilSeq !== null) shared = shared.where("seq", "<", s.untilSeq);
      if (q.beforeSeq !== undefined) shared = shared.where("seq", "<", q.beforeSeq);
      if (q.createdFrom !== undefined) shared = shared.where("created_at", ">=", q.createdFrom);
      if (q.createdBefore !== undefined) shared = shared.where("created_at", "<", q.createdBefore);
      rows.push(...(await shared.orderBy("seq", order).limit(want).execute()));
    }
    rows.sort(order === "asc" ? (a, b) => a.seq - b.seq : (a, b) => b.seq - a.seq);
  }
  return { rows: rows.slice(0, q.limit), more: rows.length > q.limit };
}

/** A poll with nothing but its cursor and limit, oldest first: what an API client asks every few seconds. */
function isPlainPoll(q: EventRowQuery): boolean {
  return (
    (q.order ?? "asc") === "asc" &&
    q.types === undefined &&
    q.networks === undefined &&
    q.watchId === undefined &&
    q.address === undefined &&
    q.txHash === undefined &&
    q.createdFrom === undefined &&
    q.createdBefore === undefined &&
    q.beforeSeq === undefined
  );
}

/** listEventRows for a plain poll, by the hand-written statements of sql/: the same reads, not built per call. */
async function plainPoll(db: Executor, q: EventRowQuery): Promise<{ rows: ListedEvent[]; more: boolean }> {
  const statements = eventStatements(db);
  const want = q.limit + 1;
  const rows: ListedEvent[] = (await db.executeQuery(statements.selectEventsAfter(q.accountId, q.afterSeq, want))).rows;
  const subscriptions = await subscriptionsOf(db, q.accountId, { afterSeq: q.afterSeq });
  for (const s of subscriptions) {
    const shared = statements.selectNetworkEventsAfter(SHARED, s.network, Math.max(q.afterSeq, s.fromSeq - 1), s.untilSeq, want);
    rows.push(...(await db.executeQuery(shared)).rows);
  }
  if (subscriptions.length > 0) rows.sort((a, b) => a.seq - b.seq);
  return { rows: rows.slice(0, q.limit), more: rows.length > q.limit };
}

/**
 * Whether an event body carries `"key":"value"`, ASCII case aside (an EVM address typed with its
 * checksum finds the stored lower-case one). Bodies are compact JSON (event-bodies.ts), so the
 * pair is a substring; `lower()` on both sides makes SQLite's LIKE and PostgreSQL's agree.
 */
function bodyHas(key: string, value: string) {
  const pair = `"${key}":${JSON.stringify(value)}`.replace(/[A-Z]/g, (c) => c.toLowerCase());
  const pattern = `%${pair.replace(/[!%_]/g, "!$&")}%`;
  return sql<boolean>`lower(body) like ${pattern} escape '!'`;
}

/** The seq of an event the account received (its own, or a shared block event it subscribed to), else null. */
export async function receivedSeq(db: Executor, accountId: string, eventId: string): Promise<number | null> {
  const [row] = (await db.executeQuery(eventStatements(db).selectEventPosition(eventId))).rows;
  if (!row) return null;
  if (row.account_id === accountId) return row.seq;
  if (row.account_id === SHARED && (await receivedBlockEvent(db, accountId, row.network, row.seq))) return row.seq;
  return null;
}

/** How many stored events an account received (its own plus the shared block events of its subscriptions). */
export async function countEvents(db: Db, accountId: string): Promise<number> {
  const own = await db
    .selectFrom("events")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("account_id", "=", accountId)
    .executeTakeFirstOrThrow();
  let total = Number(own.n);
  for (const s of await subscriptionsOf(db, accountId, { afterSeq: 0 })) {
    let shared = db
      .selectFrom("events")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("account_id", "=", SHARED)
      .where("network", "=", s.network)
      .where("seq", ">=", s.fromSeq);
    if (s.untilSeq !== null) shared = shared.where("seq", "<", s.untilSeq);
    total += Number((await shared.executeTakeFirstOrThrow()).n);
  }
  return total;
}

/** An event a reorg took out of the chain: its body now carries `"removed": true`. */
export type RemovedEvent = { id: string; type: string; network: string; body: string };

/**
 * Marks the events of orphaned blocks removed (docs/chains.md), in the caller's transaction:
 * the body gets `"removed": true`, so the listing shows it removed where it was, and the dedupe key
 * is set aside (suffixed with the event id), so the same transaction mined in the new chain makes a
 * new event and a re-sent orphaned block can make its events again. Events already removed are
 * left alone. `heights` and `hashes` name the orphaned blocks of one network; returns the events
 * it marked, in seq order.
 */
export async function markEventsRemoved(
  trx: Executor,
  orphaned: { network: string; heights: readonly number[]; hashes: ReadonlySet<string> },
): Promise<RemovedEvent[]> {
  const rows = await trx
    .selectFrom("events")
    .select(["id", "type", "body", "dedupe_key", "block_hash"])
    .where("network", "=", orphaned.network)
    .where("block_height", "in", [...orphaned.heights])
    .orderBy("seq")
    .execute();
  const removed: RemovedEvent[] = [];
  for (const e of rows) {
    if (e.block_hash === null || !orphaned.hashes.has(e.block_hash)) continue;
    const body = JSON.parse(e.body) as Record<string, unknown>;
    if (body.removed === true) continue;
    const removedBody = JSON.stringify({ ...body, removed: true });
    await trx
      .updateTable("events")
      .set({ body: removedBody, dedupe_key: `${e.dedupe_key}~removed:${e.id}` })
      .where("id", "=", e.id)
      .execute();
    removed.push({ id: e.id, type: e.type, network: orphaned.network, body: removedBody });
  }
  return removed;
}
