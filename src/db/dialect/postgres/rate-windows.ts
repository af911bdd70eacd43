import { type Kysely, sql } from "kysely";
import type { Db } from "../../executor.ts";
import { compiled } from "../compiled.ts";

/**
 * The per-second budgets of the cluster-wide rate limits (docs/operations.md): one row per limit key and
 * clock second counting what every daemon took. UNLOGGED: a budget lives for a second, so it
 * needs no WAL and may be lost in a crash (the limits then start the second afresh).
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
  /** Drops the rows of seconds before `second`. */
  async prune(db: Db, second: number): Promise<void> {
    await db.executeQuery(compiled(PRUNE, [second]));
  },
};

const LEASE = `insert into rate_windows (limit_key, second, used) values ($1, $2, $3)
on conflict (limit_key, second) do update set used = rate_windows.used + excluded.used returning used`;
const PRUNE = "delete from rate_windows where second < $1";
