import { chargeRpcCalls } from "../billing/charges.ts";
import { dropAllLeases, dropExpiredLeases, readRpcAccount, takeLease, writeLeases } from "../billing/credit-leases.ts";
import { isDatabaseUnavailable } from "../db/availability.ts";
import type { Db } from "../db/database.ts";
import type { Clock } from "../lib/clock.ts";
import { fail, type Result } from "../lib/error-codes.ts";
import type { Logger } from "../lib/log.ts";
import type { MaybePromise } from "../lib/maybe-promise.ts";
import { utcDayCache } from "../lib/time.ts";
import { createWorker, type Worker } from "../lib/worker.ts";
import { type AccountMeter, isForgettable, type MeterFailure, newAccountMeter } from "./credits/account-meter.ts";
import { applyTake, renewLeases, takeAsk, undoRenewals } from "./credits/lease.ts";
import { addCharge, type ChargeBatch, chargesInLockOrder, creditsByAccount, mergeCharges } from "./credits/pending-charges.ts";
import { releaseAndCharge, reserveFromLease } from "./credits/spend.ts";
import { applyViewRow, viewNeeds } from "./credits/view.ts";

export type { AccountMeter, MeterFailure };

/**
 * The credit side of /rpc (docs/rpc.md). A call reserves its price from the credits this daemon
 * has set aside for the account; when those run short it first sets another slice aside, in one
 * short transaction that checks the balance less what every daemon holds (billing/credit-leases.ts).
 * When a call settles, a success is charged in memory and its reservation released. Each flush
 * writes the charges (balance and usage series together) and this daemon's leases in one
 * transaction, renewing them, and gives back the lease of every account no call used since the
 * previous flush. So no two daemons' calls, and no call and webhook delivery of one daemon, spend
 * the same credits, and the hot path touches the database once a slice, not once a call.
 *
 * The rules are the pure parts in ./credits/: the account's view (view.ts), the in-memory spend
 * (spend.ts), the lease of credits set aside (lease.ts) and the batched charges
 * (pending-charges.ts); this shell reads, writes and keeps one writer at a time.
 */
export type CreditMeter = {
  /**
   * The account's record; loads its view on first use (a failure when that read fails) and
   * refreshes it in the background when stale. A record already read is answered at once, a
   * promise only on first use (every /rpc call asks: a promise a call showed in its CPU).
   */
  account(accountId: string): MaybePromise<Result<AccountMeter, MeterFailure>>;
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

/** A call short of credits waits on at most this many takes (concurrent calls may use a slice first). */
const MAX_TAKE_ROUNDS = 4;

/** Records kept before the meter forgets accounts with nothing set aside, held or unbilled. */
const MAX_ACCOUNTS = 100_000;

export function createCreditMeter(deps: CreditMeterDeps): CreditMeter {
  const refreshMs = deps.refreshMs ?? 1000;
  const leaseMs = LEASE_FLUSHES * deps.flushIntervalSeconds * 1000;
  const promised = deps.promised ?? (() => 0);
  const accounts = new Map<string, AccountMeter>();
  let pending: ChargeBatch = new Map();
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

  const readFailed = (a: AccountMeter, code: MeterFailure["code"], error: string): MeterFailure => {
    deps.log.error("rpc credit view refresh failed", { account_id: a.accountId, error });
    return fail(code);
  };
  /** Reads the account's view: null once read, else why not (logged; the view stays as it was). */
  const read = async (a: AccountMeter): Promise<MeterFailure | null> => {
    const before = a.leaseChanges;
    try {
      const row = await readRpcAccount(deps.db, a.accountId);
      // Keys are found for live accounts only, and accounts are never deleted.
      if (!row) return readFailed(a, "INTERNAL", `no account ${a.accountId}`);
      applyViewRow(a, row, before, promised(a.accountId), deps.clock.now());
      return null;
    } catch (e) {
      return readFailed(a, isDatabaseUnavailable(e) ? "DATABASE_UNAVAILABLE" : "INTERNAL", String(e));
    }
  };
  const refresh = (a: AccountMeter) => {
    a.refreshing ??= read(a).finally(() => {
      a.refreshing = null;
    });
    return a.refreshing;
  };

  /** Sets another slice aside when what is set aside cannot cover `cost`. */
  const take = (a: AccountMeter, cost: number) =>
    oneWriter(async () => {
      const ask = takeAsk(a, cost, deps.slice);
      if (!ask) return;
      const got = await takeLease(deps.db, {
        holder: deps.holder,
        accountId: a.accountId,
        leased: a.leased,
        need: ask.need,
        want: ask.want,
        promised: () => promised(a.accountId),
        leaseUntil: deps.clock.now() + leaseMs,
      });
      applyTake(a, got);
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
      // Held when the take covered it; else nothing could be taken, or concurrent calls used the
      // slice first: again while the hint allows.
      const reservation = reserveFromLease(a, cost);
      if (reservation !== "take") return reservation === "held";
    }
    return false;
  };

  const flushOnce = (giveBackAll: boolean) =>
    oneWriter(async () => {
      const nowMs = deps.clock.now();
      const reclaim = nowMs - reclaimedAt >= leaseMs / 2;
      const batch = pending;
      pending = new Map();
      // Every lease this daemon holds is written (renewed); undone in memory if the write fails.
      const renewals = renewLeases(accounts.values(), creditsByAccount(batch), giveBackAll);
      if (batch.size === 0 && renewals.length === 0 && !reclaim) return;
      let dropped = 0;
      try {
        const charges = chargesInLockOrder(batch);
        await deps.db.transaction().execute(async (trx) => {
          await chargeRpcCalls(trx, charges, nowMs);
          await writeLeases(
            trx,
            deps.holder,
            renewals.map(({ a }) => ({ accountId: a.accountId, credits: a.leased })),
            nowMs + leaseMs,
          );
          if (reclaim) dropped = await dropExpiredLeases(trx, nowMs);
        });
        if (reclaim) reclaimedAt = nowMs;
        if (dropped > 0) deps.log.info("rpc credit leases of stopped daemons given back", { leases: dropped });
      } catch (e) {
        // Nothing was written (one transaction): the charges wait for the next flush, the leases stay.
        undoRenewals(renewals);
        mergeCharges(batch, pending);
        pending = batch;
        deps.log.error("rpc charges flush failed; retrying on the next tick", { error: String(e) });
      }
    });

  // The UTC day of settled calls.
  const today = utcDayCache();

  const meter: CreditMeter = {
    account(accountId) {
      let a = accounts.get(accountId);
      if (!a) {
        if (accounts.size > MAX_ACCOUNTS) for (const [id, m] of accounts) if (isForgettable(m)) accounts.delete(id);
        a = newAccountMeter(accountId);
        accounts.set(accountId, a);
      }
      const needs = viewNeeds(a, deps.clock.now(), refreshMs);
      if (needs === "first") {
        // Never read: nothing to serve the call from. Callers sharing the read share its failure.
        const read = a;
        return refresh(read).then((failed) => failed ?? read);
      }
      if (needs === "stale") {
        // Stale: this call is served from the view while it is re-read.
        void refresh(a);
      }
      return a;
    },
    reserve(a, cost) {
      const reservation = reserveFromLease(a, cost);
      return reservation === "take" ? reserveAfterTaking(a, cost) : reservation === "held";
    },
    settle(a, held, charged, calls) {
      releaseAndCharge(a, held, charged);
      if (charged === 0 && calls === 0) return;
      addCharge(pending, a.accountId, today(deps.clock.now()), charged, calls);
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
