import { dropAllLeases, dropExpiredLeases, takeLease, writeLeases } from "../billing/credit-leases.ts";
import type { Db } from "../db/database.ts";
import { statementsOf } from "../db/statements.ts";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/log.ts";
import { utcDayCache } from "../lib/time.ts";
import { createWorker, type Worker } from "../lib/worker.ts";

/**
 * What the /rpc hot path knows of an account without touching the database: the credits this
 * daemon has set aside for it (its lease), what calls in flight hold of them and what answered
 * calls spent, and a hint of what a new lease could get.
 */
export type AccountMeter = {
  accountId: string;
  /** The plan's `rpc_rps` as last read. */
  rpcRps: number;
  /** Credits of the account set aside by this daemon and not charged yet: its row in `credit_leases`. */
  leased: number;
  /** Credits reserved by calls sent upstream and not settled yet. */
  held: number;
  /** Credits charged in memory and not yet written (pending or being flushed); part of `leased`. */
  unbilled: number;
  /**
   * What a new lease could take, as last seen: the balance less every daemon's leases and this
   * daemon's promises to deliveries. A hint, re-read at most a second after it is used, so an
   * account that has run out is refused without a database round trip.
   */
  free: number;
  /** Credits calls reserved since the last flush; an account with none gives its lease back at the flush. */
  reservedSinceFlush: number;
  /** Credits calls reserved in the last flush interval: a slice is at least that, so a busy account takes about one a flush. */
  pace: number;
  /** Slices taken since the last flush: each one twice the one before, so a burst needs few takes. */
  takesSinceFlush: number;
  refreshedAt: number;
  /** Bumped whenever this daemon changes its lease (a take, a give-back): a view read before is stale. */
  leaseChanges: number;
  refreshing: Promise<void> | null;
};

/**
 * The credit side of /rpc (docs/rpc.md). A call reserves its price from the credits this
 * daemon has set aside for the account; when those run short it first sets another slice aside, in
 * one short transaction that checks the balance less what every daemon holds (billing/credit-leases.ts).
 * When a call settles, a success is charged in memory and its reservation released. Each flush
 * writes the charges (balance and usage series together) and this daemon's leases in one
 * transaction, renewing them, and gives back the lease of every account no call used since the
 * previous flush. So no two daemons' calls, and no call and webhook delivery of one daemon, spend
 * the same credits, and the hot path touches the database once a slice, not once a call.
 */
export type CreditMeter = {
  /** The account's view; loads it on first use and refreshes it in the background when stale. */
  account(accountId: string): Promise<AccountMeter>;
  /**
   * Holds `cost` credits for a call: at once from what is set aside, else after setting another
   * slice aside (a promise). False when the account's free credits cannot cover it.
   */
  reserve(a: AccountMeter, cost: number): boolean | Promise<boolean>;
  /** Settles calls: releases `held` credits, charges `charged` and counts `calls` answered. */
  settle(a: AccountMeter, held: number, charged: number, calls: number): void;
  /** Writes the charges pending so far and renews the leases; concurrent callers share one flush. */
  flush(): Promise<void>;
  /**
   * Gives back the credits of leases whose holders stopped renewing them; `all`: every lease,
   * for a daemon that knows it is alone on its database (a SQLite file it locked) at start.
   */
  reclaim(all: boolean): Promise<void>;
  /** A daemon worker flushing every `flushIntervalSeconds`; on stop it flushes and gives back every lease. */
  worker(): Worker;
};

export type CreditMeterDeps = {
  db: Db;
  clock: Clock;
  log: Logger;
  flushIntervalSeconds: number;
  /** Credits set aside at a time (more when one call costs more). */
  slice: number;
  /** This daemon's name in `credit_leases`: unique among the daemons sharing the database. */
  holder: string;
  /** Credits of an account this daemon has promised to webhook deliveries in flight (not charged yet). */
  promised?: (accountId: string) => number;
  refreshMs?: number;
};

/** A lease not renewed for this many flush intervals belongs to a daemon that is gone. */
export const LEASE_FLUSHES = 10;

const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);

type Pending = { accountId: string; day: string; credits: number; calls: number };

/** A call short of credits waits on at most this many takes (concurrent calls may use a slice first). */
const MAX_TAKE_ROUNDS = 4;

export function createCreditMeter(deps: CreditMeterDeps): CreditMeter {
  const refreshMs = deps.refreshMs ?? 1000;
  const leaseMs = LEASE_FLUSHES * deps.flushIntervalSeconds * 1000;
  const promised = deps.promised ?? (() => 0);
  const statements = statementsOf(deps.db);
  const accounts = new Map<string, AccountMeter>();
  let pending = new Map<string, Pending>();
  let flushing: Promise<void> | null = null;
  let queuedFlush: Promise<void> | null = null;
  let reclaimedAt = Number.NEGATIVE_INFINITY;
  let takesFailing = false;

  // Takes and flushes write this daemon's lease rows whole from what it holds in memory, so they
  // run one at a time: a flush must not overwrite a row with a value computed before a take.
  let writing: Promise<unknown> = Promise.resolve();
  const oneWriter = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = writing.then(fn, fn);
    writing = run.catch(() => {});
    return run;
  };

  const spendable = (a: AccountMeter) => a.leased - a.held - a.unbilled;
  /**
   * What the next take asks for: `slice`, or what the account's calls reserved in the last flush
   * interval when more, doubled for each slice taken since. Unspent at a flush is then less than the
   * last slice, which is below `slice` plus twice what the calls spent in the interval.
   */
  const sliceOf = (a: AccountMeter) => Math.max(deps.slice, a.pace) * 2 ** Math.min(a.takesSinceFlush, 20);
  const hold = (a: AccountMeter, cost: number) => {
    a.held += cost;
    a.reservedSinceFlush += cost;
  };

  const read = async (a: AccountMeter) => {
    const before = a.leaseChanges;
    const { rows } = await deps.db.executeQuery(statements.readRpcAccount(a.accountId));
    const row = rows[0];
    if (!row) throw new Error(`no account ${a.accountId}`);
    a.rpcRps = Number(row.rpc_rps);
    // A take or a give-back of this daemon's lease while the row was read already set `free` from
    // what it knew; the row read before it would undo that (and refuse calls the credits can pay).
    if (a.leaseChanges === before) a.free = Number(row.credits) - Number(row.leased) - promised(a.accountId);
    a.refreshedAt = deps.clock.now();
  };
  const refresh = (a: AccountMeter) => {
    a.refreshing ??= read(a)
      .catch((e) => deps.log.error("rpc credit view refresh failed", { account_id: a.accountId, error: String(e) }))
      .finally(() => {
        a.refreshing = null;
      });
    return a.refreshing;
  };

  /** Sets another slice aside when what is set aside cannot cover `cost`. */
  const take = (a: AccountMeter, cost: number) =>
    oneWriter(async () => {
      const short = cost - spendable(a);
      if (short <= 0) return;
      const got = await takeLease(deps.db, {
        holder: deps.holder,
        accountId: a.accountId,
        leased: a.leased,
        need: short,
        want: Math.max(short, sliceOf(a)),
        promised: () => promised(a.accountId),
        leaseUntil: deps.clock.now() + leaseMs,
      });
      a.leased += got.taken;
      a.free = got.free - got.taken;
      a.leaseChanges++;
      if (got.taken > 0) a.takesSinceFlush++;
    });

  const reserveAfterTaking = async (a: AccountMeter, cost: number): Promise<boolean> => {
    for (let round = 0; round < MAX_TAKE_ROUNDS; round++) {
      try {
        await take(a, cost);
        if (takesFailing) {
          takesFailing = false;
          deps.log.info("rpc credit leases work again");
        }
      } catch (e) {
        if (!takesFailing) {
          takesFailing = true;
          deps.log.error("rpc credit lease failed; calls beyond what is set aside are refused", { error: String(e) });
        }
        return false;
      }
      if (spendable(a) >= cost) {
        hold(a, cost);
        return true;
      }
      // Nothing to take, or concurrent calls used the slice first: try again while the hint allows.
      if (a.free < cost - spendable(a)) return false;
    }
    return false;
  };

  const flushOnce = (giveBackAll: boolean) =>
    oneWriter(async () => {
      const nowMs = deps.clock.now();
      const reclaim = nowMs - reclaimedAt >= leaseMs / 2;
      const batch = pending;
      pending = new Map();
      const charged = new Map<string, number>();
      for (const p of batch.values()) charged.set(p.accountId, (charged.get(p.accountId) ?? 0) + p.credits);
      // Every lease this daemon holds is written (renewed); an idle one, or all when stopping, shrinks
      // to what is still unbilled or held. Applied in memory before the write, so no call can
      // reserve credits on their way back; undone if the write fails.
      const changes: { a: AccountMeter; charged: number; gaveBack: number }[] = [];
      for (const a of accounts.values()) {
        const reserved = a.reservedSinceFlush;
        a.pace = reserved;
        a.reservedSinceFlush = 0;
        a.takesSinceFlush = 0;
        const c = charged.get(a.accountId) ?? 0;
        if (a.leased === 0 && c === 0) continue;
        const gaveBack = giveBackAll || (reserved === 0 && a.held === 0) ? Math.max(0, spendable(a)) : 0;
        a.leased -= c + gaveBack;
        a.unbilled -= c;
        // What goes back is free again (what was charged left the balance and the lease alike):
        // the view must say so, or the next call is refused until the view is read afresh.
        a.free += gaveBack;
        if (gaveBack > 0) a.leaseChanges++;
        changes.push({ a, charged: c, gaveBack });
      }
      if (batch.size === 0 && changes.length === 0 && !reclaim) return;
      let dropped = 0;
      try {
        // In account id order, as deliveries settle: transactions of several daemons then lock
        // account rows in one order and cannot deadlock.
        const charges = [...batch.values()].sort((x, y) => (x.accountId === y.accountId ? cmp(x.day, y.day) : cmp(x.accountId, y.accountId)));
        await deps.db.transaction().execute(async (trx) => {
          for (const p of charges) {
            if (p.credits > 0) await trx.executeQuery(statements.chargeAccount(p.accountId, p.credits, nowMs));
            await trx.executeQuery(statements.addRpcUsage(p.accountId, p.day, p.credits, p.calls));
          }
          await writeLeases(
            trx,
            deps.holder,
            changes.map(({ a }) => ({ accountId: a.accountId, credits: a.leased })),
            nowMs + leaseMs,
          );
          if (reclaim) dropped = await dropExpiredLeases(trx, nowMs);
        });
        if (reclaim) reclaimedAt = nowMs;
        if (dropped > 0) deps.log.info("rpc credit leases of stopped daemons given back", { leases: dropped });
      } catch (e) {
        // Nothing was written (one transaction): the charges wait for the next flush, the leases stay.
        for (const { a, charged: c, gaveBack } of changes) {
          a.leased += c + gaveBack;
          a.unbilled += c;
          a.free -= gaveBack;
        }
        for (const [k, p] of batch) {
          const cur = pending.get(k);
          if (cur) {
            cur.credits += p.credits;
            cur.calls += p.calls;
          } else pending.set(k, p);
        }
        deps.log.error("rpc charges flush failed; retrying on the next tick", { error: String(e) });
      }
    });

  // The UTC day of settled calls.
  const today = utcDayCache();

  const meter: CreditMeter = {
    async account(accountId) {
      let a = accounts.get(accountId);
      if (!a) {
        if (accounts.size > 100_000) for (const [id, m] of accounts) if (m.leased === 0 && m.held === 0 && m.unbilled === 0) accounts.delete(id);
        a = {
          accountId,
          rpcRps: 0,
          leased: 0,
          held: 0,
          unbilled: 0,
          free: 0,
          reservedSinceFlush: 0,
          pace: 0,
          takesSinceFlush: 0,
          refreshedAt: Number.NEGATIVE_INFINITY,
          leaseChanges: 0,
          refreshing: null,
        };
        accounts.set(accountId, a);
      }
      if (a.refreshedAt === Number.NEGATIVE_INFINITY) {
        await refresh(a);
        if (a.refreshedAt === Number.NEGATIVE_INFINITY) throw new Error(`cannot read the credits of account ${accountId}`);
      } else if (!a.refreshing && deps.clock.now() - a.refreshedAt >= refreshMs) {
        // Stale: this call is served from the view while it is re-read.
        void refresh(a);
      }
      return a;
    },
    reserve(a, cost) {
      if (cost === 0) return true;
      if (spendable(a) >= cost) {
        hold(a, cost);
        return true;
      }
      // The hint says no lease could cover it: refused without a database round trip.
      if (a.free < cost - spendable(a)) return false;
      return reserveAfterTaking(a, cost);
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
      if (!flushing) {
        flushing = flushOnce(false).finally(() => {
          flushing = null;
        });
        return flushing;
      }
      // One is running: it took its batch before this call, so what was settled since waits for
      // the next flush, shared by every caller that comes meanwhile.
      const next = () => {
        queuedFlush = null;
        return meter.flush();
      };
      queuedFlush ??= flushing.then(next, next);
      return queuedFlush;
    },
    async reclaim(all) {
      const dropped = await oneWriter(() => (all ? dropAllLeases(deps.db) : dropExpiredLeases(deps.db, deps.clock.now())));
      reclaimedAt = deps.clock.now();
      if (dropped > 0) deps.log.info("rpc credit leases of stopped daemons given back", { leases: dropped });
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
      // The last flush runs after the schedule stopped: what the final requests charged is written
      // too, and every lease goes back, so a daemon stopped cleanly leaves no credits set aside.
      return {
        ...w,
        async stop() {
          await w.stop();
          await flushing;
          await flushOnce(true);
        },
      };
    },
  };
  return meter;
}
