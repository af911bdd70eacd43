import type { Clock } from "../lib/clock.ts";
import { yieldToEventLoop } from "../lib/yield.ts";
import type { Logger } from "../lib/log.ts";
import type { ClaimedDelivery } from "./claim.ts";
import type { CreditReservations } from "./reservations.ts";
import type { Settlement } from "./settle.ts";

// One pass of the delivery loop: the scheduling between the steps. It keeps `concurrency` sends
// in flight and POSTs outside any transaction: when one finishes, the next already-claimed row
// goes out at once, so the database is never on the path from one request to the next. Its
// database work is a series of short write transactions, one at a time (`commit`), each recording
// the attempts that finished since the last (group commit) and then claiming due rows to keep up
// to `concurrency` rows ready behind the ones in flight, until nothing is due, ready, in flight
// or unrecorded.

/** An attempt that finished, waiting to be recorded. */
export type Finished = Settlement & { delivery: ClaimedDelivery };

/** What a commit claimed, and whether more may be due than it found room for (see ClaimResult). */
export type Committed = { claimed: ClaimedDelivery[]; more: boolean };

export type PassDeps = {
  concurrency: number;
  /** A busy pass claims again once this many slots are free (a claim scans the due index). */
  claimBatch: number;
  leaseMs: number;
  /** A ready row waiting longer than this for a slot is not sent on its lease (see createDeliveryLoop). */
  readyForMs: number;
  clock: Clock;
  log: Logger;
  work: WorkSignal;
  reservations: CreditReservations;
  /** Sends one claimed row and says what the attempt came to. */
  send(d: ClaimedDelivery): Promise<Finished>;
  /**
   * One write transaction: records `group`, drops the leases of `unsent`, then claims up to
   * `limit` rows; null when the transaction failed (the pass then stops claiming and drains).
   * `more` says the claim moved due rows out of the way and more may be due behind them.
   * It also ends the promised credits of `group` and `unsent` and holds those of the rows claimed.
   */
  commit(group: Finished[], unsent: ClaimedDelivery[], limit: number): Promise<Committed | null>;
};

/** Runs one pass until nothing is due, ready, in flight or unrecorded; winds down once `stopping()`. */
export async function runPass(deps: PassDeps, stopping: () => boolean): Promise<void> {
  const { concurrency, work, reservations } = deps;
  // Claimed (leased, credits promised) and waiting for a slot, oldest first.
  const ready: ClaimedDelivery[] = [];
  // Claimed but not sent after all (stale, or the loop is stopping): leases dropped at the next commit.
  const unsent: ClaimedDelivery[] = [];
  // Attempts that finished and wait for the next commit; their slots are already taken again.
  const finished: Finished[] = [];
  let inFlight = 0;
  let canClaim = true;
  // The last claim moved due rows out of the way and found room for more: the next claim follows at
  // once, but only after the event loop ran (a run of such claims sends nothing to wait on, and
  // SQLite's driver answers synchronously, so it would otherwise hold the thread).
  let claimAgain = false;
  // False once a claim found fewer due rows than it asked for; recording outcomes (which can make
  // a retry or a payment's next webhook due) or an announcement sets it again.
  let mayBeDue = true;
  // Results that arrive in the same turn of the event loop join one commit.
  let commitQueued = false;
  const commitSoon = () => {
    if (commitQueued) return;
    commitQueued = true;
    setImmediate(() => {
      commitQueued = false;
      work.notify();
    });
  };
  const isStale = (d: ClaimedDelivery) => deps.clock.now() - ((d.lease_until ?? 0) - deps.leaseMs) > deps.readyForMs;
  const fill = () => {
    while (inFlight < concurrency && ready.length > 0) {
      const d = ready.shift() as ClaimedDelivery;
      if (stopping() || isStale(d)) {
        unsent.push(d);
        commitSoon();
        continue;
      }
      inFlight++;
      deps.send(d).then(
        (settlement) => {
          inFlight--;
          finished.push(settlement);
          fill();
          commitSoon();
        },
        (e) => {
          inFlight--;
          reservations.free(d);
          deps.log.error("delivery attempt not recorded", { delivery_id: d.id, error: String(e) });
          fill();
          commitSoon();
        },
      );
    }
  };

  for (;;) {
    if (claimAgain) {
      claimAgain = false;
      await yieldToEventLoop();
    }
    if (stopping() && ready.length > 0) unsent.push(...ready.splice(0));
    const claimedNow = inFlight + ready.length;
    const room = stopping() || !canClaim ? 0 : 2 * concurrency - claimedNow;
    const claim = room > 0 && (work.announced || (mayBeDue && (room >= deps.claimBatch || claimedNow === 0)));
    if (finished.length === 0 && unsent.length === 0 && !claim) {
      if (claimedNow === 0) break;
      await work.wait();
      continue;
    }
    if (claim) work.announced = false;
    const group = finished.splice(0);
    const dropped = unsent.splice(0);
    // The commit ends the promised credits of the group and the dropped rows, and holds those of
    // the rows it claims (see CreditReservations).
    const committed = await deps.commit(group, dropped, claim ? room : 0);
    if (committed === null) canClaim = false;
    else if (claim) mayBeDue = committed.claimed.length === room || committed.more;
    else if (group.length > 0 || dropped.length > 0) mayBeDue = true;
    claimAgain = claim && committed !== null && committed.more;
    if (committed) {
      ready.push(...committed.claimed);
      fill();
    }
  }
}

/**
 * How a pass learns of new work: results arriving, a stop, or an announcement that rows were
 * queued (`announce`, which also makes the next round claim at once).
 */
export type WorkSignal = {
  /** Set by announce(); the pass clears it when it claims. */
  announced: boolean;
  announce(): void;
  notify(): void;
  wait(): Promise<void>;
};

/** A wake-up that is never lost: a notify before anyone waits is kept for the next wait. */
export function createWorkSignal(): WorkSignal {
  let pending = false;
  let resolve: (() => void) | null = null;
  const signal: WorkSignal = {
    announced: false,
    announce() {
      signal.announced = true;
      signal.notify();
    },
    notify() {
      if (resolve) {
        const r = resolve;
        resolve = null;
        r();
      } else pending = true;
    },
    wait() {
      if (pending) {
        pending = false;
        return Promise.resolve();
      }
      return new Promise<void>((r) => {
        resolve = r;
      });
    },
  };
  return signal;
}
