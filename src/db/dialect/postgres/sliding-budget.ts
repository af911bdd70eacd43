import { type Kysely, sql } from "kysely";
import type { Db } from "../../executor.ts";
import { compiled } from "../compiled.ts";
import { prepared } from "./prepared.ts";

/**
 * The sliding one-second budgets of the API's per-key and `/rpc`'s per-plan limits across daemons
 * (docs/operations.md): one row per limit key holding what the daemons took as a short list of
 * entries, each a count and the wall-clock millisecond until which it counts. A daemon's lease is
 * an entry of its own (its holder id) counting until a second past the lease's last possible use;
 * its next lease replaces it by what it really used, counted until a second past the last use.
 * A lease is granted what the limit leaves after every entry still counting, so no 1000 ms sees
 * the daemons together admit more than the limit. UNLOGGED: a budget lives for a second, so it
 * needs no WAL and may be lost in a crash.
 *
 * One statement per lease, whose row lock orders the daemons: an upsert whose update reads the
 * row as the last daemon left it (under READ COMMITTED an UPDATE re-reads a row it waited for).
 * Prepared once per connection: planning it cost more than running it.
 */
export const postgresSlidingBudget = {
  async create(db: Kysely<any>): Promise<void> {
    await sql`create unlogged table if not exists rate_leases (
      limit_key text primary key,
      expires bigint[] not null,
      counts integer[] not null,
      holders text[] not null,
      until bigint not null)`.execute(db);
  },
  async drop(db: Kysely<any>): Promise<void> {
    await sql`drop table if exists rate_leases`.execute(db);
  },
  async lease(db: Db, l: SlidingLease): Promise<{ granted: number; nextFreeMs: number | null }> {
    const { rows } = await db.executeQuery<{ granted: string | number; next_free: string | number | null }>(
      compiled(LEASE, [l.key, l.holder, l.nowMs, l.want, l.limit, l.reserveUntilMs, l.settled, l.settledUntilMs, l.carried, l.horizonMs]),
    );
    const row = rows[0];
    return { granted: Number(row.granted), nextFreeMs: row.next_free === null ? null : Number(row.next_free) };
  },
  /**
   * Drops the rows of keys whose entries all stopped counting more than 5 s ago by the database
   * server's clock: one clock for every daemon, so a daemon whose own clock is ahead cannot empty
   * rows the others still count on.
   */
  async prune(db: Db): Promise<void> {
    await db.executeQuery(compiled(PRUNE, []));
  },
};

/** One daemon's lease of a key's budget; with `want` 0, only the report of what it used. */
export type SlidingLease = {
  key: string;
  /** The daemon's own id: its previous lease is the entry it replaces. */
  holder: string;
  nowMs: number;
  want: number;
  limit: number;
  /** Until when the new lease counts: a second past the last moment its tokens may be used. */
  reserveUntilMs: number;
  /** Tokens of the previous lease used, and until when they count (a second past the last use). */
  settled: number;
  settledUntilMs: number;
  /** Tokens of the previous lease not used that the daemon keeps: they count again in the new one. */
  carried: number;
  /**
   * No entry can count past this by this daemon's clock (a lease's hold and a second, and some
   * slack): one that does was written by a clock ahead of this one, or before this one stepped
   * back, and is dropped rather than hold the key shut for as long as the clocks are apart.
   */
  horizonMs: number;
};

/**
 * The row after a lease, from the entries `e`, `c`, `h` it had: those still counting other than
 * this holder's previous lease, what that lease really used, and the new lease (what is carried
 * plus what the limit leaves, up to `want`). $1 key, $2 holder, $3 now, $4 want, $5 limit,
 * $6 reserve until, $7 settled, $8 settled until, $9 carried, $10 horizon.
 */
const nextRow = (e: string, c: string, h: string) => `(
  with kept as (
    select e, c, h from unnest(${e}, ${c}, ${h}) as t(e, c, h) where e > $3::bigint and e <= $10::bigint and h <> $2::text
    union all select $8::bigint, $7::integer, ''::text where $7::integer > 0 and $8::bigint > $3::bigint
  ), grant_ as (
    select greatest(0, least($4::integer, $5::integer - $9::integer - coalesce(sum(c), 0)))::integer as g from kept
  ), entries as (
    select e, c, h from kept
    union all select $6::bigint, $9::integer + g, $2::text from grant_ where $9::integer + g > 0
  )
  select coalesce(array_agg(e), '{}'), coalesce(array_agg(c), '{}'), coalesce(array_agg(h), '{}'), coalesce(max(e), $3::bigint)
  from entries
)`;

// `granted` is the new lease's count less what was carried into it; `next_free` the earliest
// moment an entry other than the new lease may stop counting (when a refused daemon may ask again;
// its own lease is replaced by what it used whenever it asks). Another daemon's lease counts until
// a second past its hold, but its report when the hold ends replaces it by what it used, counted
// until a second past the last use: at the earliest a second past the lease itself, its end less
// the hold (this lease's hold, $6 - $3 less the second: every daemon holds alike). Were a refused
// daemon to wait for the lease's own end instead, a client refused after a burst on one daemon
// would find its limit again only a hold later than a second on another.
const LEASE = prepared(`insert into rate_leases as r (limit_key, expires, counts, holders, until)
select $1::text, n.* from ${nextRow("'{}'::bigint[]", "'{}'::integer[]", "'{}'::text[]")} as n
on conflict (limit_key) do update set (expires, counts, holders, until) = ${nextRow("r.expires", "r.counts", "r.holders")}
returning
  coalesce((select sum(c) from unnest(r.counts, r.holders) as t(c, h) where h = $2::text), 0) - $9::integer as granted,
  (select min(case when h = '' then e else e - ($6::bigint - $3::bigint - 1000) end) from unnest(r.expires, r.holders) as t(e, h) where h <> $2::text) as next_free`);

const PRUNE = "delete from rate_leases where until < (extract(epoch from clock_timestamp()) * 1000)::bigint - 5000";
