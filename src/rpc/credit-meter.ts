import type { Db } from "../db/database.ts";
import { fixedStatement } from "../db/fixed-sql.ts";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/log.ts";
import { utcDay } from "../lib/time.ts";
import { createWorker, type Worker } from "../lib/worker.ts";

/**
 * What the /rpc hot path knows of an account without touching the database: the balance and plan
 * limit last read from it, credits held by calls in flight, and credits charged but not yet written.
 */
export type AccountMeter = {
  accountId: string;
  /** `accounts.credits` as last read, less what this process flushed since. */
  balance: number;
  /** The plan's `rpc_rps` as last read. */
  rpcRps: number;
  /** Credits reserved by calls sent upstream and not settled yet. */
  held: number;
  /** Credits charged in memory and not yet written (pending or being flushed). */
  unbilled: number;
  refreshedAt: number;
  refreshing: Promise<void> | null;
};

/**
 * The credit side of /rpc. A call reserves its price from the in-memory view before it is sent;
 * when it settles, a success is charged in memory and the reservation is released. Charges reach
 * the database in one transaction per flush (balance and usage series together), so the hot path
 * adds no write per call; the view is re-read at most once a second per account, in the background.
 */
export type CreditMeter = {
  /** The account's view; loads it on first use and refreshes it in the background when stale. */
  account(accountId: string): Promise<AccountMeter>;
  /** Holds `cost` credits for a call when the balance, less what is held and unbilled, covers it. */
  reserve(a: AccountMeter, cost: number): boolean;
  /** Settles calls: releases `held` credits, charges `charged` and counts `calls` answered. */
  settle(a: AccountMeter, held: number, charged: number, calls: number): void;
  /** Writes the charges pending so far; concurrent callers share one flush. */
  flush(): Promise<void>;
  /** A daemon worker flushing every `flushIntervalSeconds`, and once more on stop. */
  worker(): Worker;
};

export type CreditMeterDeps = { db: Db; clock: Clock; log: Logger; flushIntervalSeconds: number; refreshMs?: number };

const DAY_MS = 86_400_000;

type Pending = { accountId: string; day: string; credits: number; calls: number };

const READ_ACCOUNT = `select a.credits, p.rpc_rps from accounts a join plans p on p.name = a.plan where a.id = ?`;
const CHARGE = "update accounts set credits = credits - ?, updated_at = ? where id = ?";
const ADD_RPC_USAGE = `insert into usage_daily (account_id, day, credits, deliveries, events, rpc_calls) values (?, ?, ?, 0, 0, ?)
on conflict (account_id, day) do update set credits = usage_daily.credits + excluded.credits, rpc_calls = usage_daily.rpc_calls + excluded.rpc_calls`;

export function createCreditMeter(deps: CreditMeterDeps): CreditMeter {
  const refreshMs = deps.refreshMs ?? 1000;
  const accounts = new Map<string, AccountMeter>();
  let pending = new Map<string, Pending>();
  let flushing: Promise<void> | null = null;
  // Bumped when a flush starts and when it ends: a balance read that overlapped a flush cannot
  // tell whether it saw that flush's charge, so it is dropped and the next call reads again.
  let flushEpoch = 0;

  const read = async (a: AccountMeter) => {
    const epoch = flushEpoch;
    const { rows } = await deps.db.executeQuery<{ credits: number | string; rpc_rps: number }>(fixedStatement(READ_ACCOUNT, [a.accountId]));
    const row = rows[0];
    if (!row) throw new Error(`no account ${a.accountId}`);
    a.rpcRps = Number(row.rpc_rps);
    if (epoch === flushEpoch && flushing === null) {
      a.balance = Number(row.credits);
      a.refreshedAt = deps.clock.now();
    }
  };
  const refresh = (a: AccountMeter) => {
    a.refreshing ??= read(a)
      .catch((e) => deps.log.error("rpc credit view refresh failed", { account_id: a.accountId, error: String(e) }))
      .finally(() => {
        a.refreshing = null;
      });
    return a.refreshing;
  };

  const writePending = async (batch: Map<string, Pending>) => {
    const now = deps.clock.now();
    await deps.db.transaction().execute(async (trx) => {
      for (const p of batch.values()) {
        if (p.credits > 0) await trx.executeQuery(fixedStatement(CHARGE, [p.credits, now, p.accountId]));
        await trx.executeQuery(fixedStatement(ADD_RPC_USAGE, [p.accountId, p.day, p.credits, p.calls]));
      }
    });
  };

  const flushOnce = async () => {
    if (pending.size === 0) return;
    const batch = pending;
    pending = new Map();
    flushEpoch++;
    try {
      await writePending(batch);
      // Written: the charge now lives in the stored balance instead of in `unbilled`.
      for (const p of batch.values()) {
        const a = accounts.get(p.accountId);
        if (!a) continue;
        a.unbilled -= p.credits;
        a.balance -= p.credits;
      }
    } catch (e) {
      // Nothing was written (one transaction): the charges wait for the next flush.
      for (const [k, p] of batch) {
        const cur = pending.get(k);
        if (cur) {
          cur.credits += p.credits;
          cur.calls += p.calls;
        } else pending.set(k, p);
      }
      deps.log.error("rpc charges flush failed; retrying on the next tick", { error: String(e) });
    } finally {
      flushEpoch++;
    }
  };

  // The UTC day of settled calls, recomputed only when the clock leaves the cached day.
  let day = { name: "", from: 0, until: 0 };
  const today = (nowMs: number) => {
    if (nowMs < day.from || nowMs >= day.until) {
      const from = nowMs - (nowMs % DAY_MS);
      day = { name: utcDay(nowMs), from, until: from + DAY_MS };
    }
    return day.name;
  };

  const meter: CreditMeter = {
    async account(accountId) {
      let a = accounts.get(accountId);
      if (!a) {
        if (accounts.size > 100_000) for (const [id, m] of accounts) if (m.held === 0 && m.unbilled === 0) accounts.delete(id);
        a = { accountId, balance: 0, rpcRps: 0, held: 0, unbilled: 0, refreshedAt: Number.NEGATIVE_INFINITY, refreshing: null };
        accounts.set(accountId, a);
      }
      if (a.refreshedAt === Number.NEGATIVE_INFINITY) {
        // Never loaded: wait for a read that did not overlap a flush (a flush is over in milliseconds).
        for (let tries = 0; a.refreshedAt === Number.NEGATIVE_INFINITY && tries < 5; tries++) {
          await refresh(a);
          await flushing;
        }
        if (a.refreshedAt === Number.NEGATIVE_INFINITY) throw new Error(`cannot read the credits of account ${accountId}`);
      } else if (!a.refreshing && deps.clock.now() - a.refreshedAt >= refreshMs) {
        // Stale: this call is served from the view while it is re-read.
        void refresh(a);
      }
      return a;
    },
    reserve(a, cost) {
      if (cost === 0) return true;
      if (a.balance - a.held - a.unbilled < cost) return false;
      a.held += cost;
      return true;
    },
    settle(a, held, charged, calls) {
      a.held -= held;
      if (charged === 0 && calls === 0) return;
      a.unbilled += charged;
      const day = today(deps.clock.now());
      const k = `${a.accountId}\n${day}`;
      const p = pending.get(k);
      if (p) {
        p.credits += charged;
        p.calls += calls;
      } else pending.set(k, { accountId: a.accountId, day, credits: charged, calls });
    },
    flush() {
      flushing ??= flushOnce().finally(() => {
        flushing = null;
      });
      return flushing;
    },
    worker() {
      const w = createWorker({
        name: "rpc-credit-flush",
        log: deps.log,
        schedule: "* * * * * *",
        intervalSeconds: deps.flushIntervalSeconds,
        failure: "rpc charges flush failed",
        run: () => meter.flush(),
      });
      // The last flush runs after the schedule stopped: what the final requests charged is written too.
      return {
        ...w,
        async stop() {
          await w.stop();
          await meter.flush();
        },
      };
    },
  };
  return meter;
}
