import { type Kysely, sql } from "kysely";
import type { Db } from "../../executor.ts";
import { compiled } from "../compiled.ts";

/**
 * The budgets of the cluster-wide rate limits (docs/operations.md), kept two ways in one table
 * counting what every daemon took:
 * - per clock second (the webhooks' delivery limits): a row per key and second;
 * - per slot of `RATE_SLOT_MS` (the API and RPC limits, which count any 1000 ms): a row per key
 *   and slot, its key prefixed `slot:` and the slot's number in the column `second`.
 * UNLOGGED: a budget lives for a second, so it needs no WAL and may be lost in a crash (the limits
 * then start afresh).
 */
export const postgresRateWindows = {
  async create(db: Kysely<any>): Promise<void> {
    await sql`create unlogged table if not exists rate_windows (limit_key text not null, second bigint not null, used bigint not null, primary key (limit_key, second))`.execute(db);
  },
  async drop(db: Kysely<any>): Promise<void> {
    await sql`drop table if exists rate_windows`.execute(db);
  },
  /**
   * Takes up to `want` of the `limit` a second of `key` in `second`: one atomic upsert (the row
   * lock orders the daemons), answering how many it got. A row past its limit keeps counting; that
   * only records demand.
   */
  async lease(db: Db, key: string, second: number, want: number, limit: number): Promise<number> {
    const { rows } = await db.executeQuery<{ used: number }>(compiled(LEASE, [key, second, want]));
    const before = Number(rows[0].used) - want;
    return Math.max(0, Math.min(want, limit - before));
  },
  /**
   * Takes up to `want` of `key`'s `limit` for a slot, counting what the slots from `since` up to it
   * were granted. The slot's row is locked, so daemons leasing in one slot are served in turn, and
   * records only what it grants (a later slot counts it). Answers how many it got.
   */
  async leaseWindow(db: Db, l: RateLease): Promise<number> {
    const key = `slot:${l.key}`;
    if (l.fresh) await db.executeQuery(compiled(ENSURE_SLOT, [key, l.slot]));
    const back = l.giveBack ?? { slot: -1, n: 0 };
    const { rows } = await db.executeQuery<{ got: string | number }>(compiled(LEASE_SLOT, [key, l.slot, l.since, l.want, l.limit, back.slot, back.n]));
    return rows.length === 0 ? 0 : Number(rows[0].got);
  },
  /** Drops the rows of seconds before `second` (and of the slots before its start). */
  async prune(db: Db, second: number): Promise<void> {
    await db.executeQuery(compiled(PRUNE, [second, second * (1000 / RATE_SLOT_MS)]));
  },
};

/** The length of a slot of the API and RPC limits' budgets. */
export const RATE_SLOT_MS = 50;

/** One lease of a budget counted in slots (`leaseWindow`). */
export type RateLease = {
  key: string;
  /** The slot leased in: `floor(ms / RATE_SLOT_MS)`. */
  slot: number;
  /** The first earlier slot whose grants count against this one. */
  since: number;
  want: number;
  limit: number;
  /** The caller has not leased in this slot yet, so its row may have to be made first. */
  fresh: boolean;
  /** What the caller was granted in an earlier slot and did not use, handed back. */
  giveBack?: { slot: number; n: number };
};

const LEASE = `insert into rate_windows (limit_key, second, used) values ($1, $2, $3)
on conflict (limit_key, second) do update set used = rate_windows.used + excluded.used returning used`;

const ENSURE_SLOT = "insert into rate_windows (limit_key, second, used) values ($1, $2, 0) on conflict do nothing";
// The row of the slot exists (ENSURE_SLOT); `old` locks it and reads its newest count even when another
// daemon's lease committed after this statement began, so `got` is exactly what this lease added.
const LEASE_SLOT = `with earlier as (
  select coalesce(sum(used), 0) as n from rate_windows where limit_key = $1 and second >= $3 and second < $2
), back as (
  update rate_windows set used = greatest(0, used - $7) where limit_key = $1 and second = $6 and $7 > 0
), old as (
  select used from rate_windows where limit_key = $1 and second = $2 for update
)
update rate_windows r set used = r.used + least($4, greatest(0, $5 - (select n from earlier) - old.used))
from old where r.limit_key = $1 and r.second = $2
returning r.used - old.used as got`;
const PRUNE = "delete from rate_windows where second < (case when limit_key like 'slot:%' then $2::bigint else $1::bigint end)";
