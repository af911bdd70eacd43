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
// the attempts that finished since the last (group commit) and then claiming due rows to keep rows
// ready behind the ones in flight (readyDepth: enough for the slots to send through one commit),
// until nothing is due, ready, in flight or unrecorded.

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
   * `limit` rows; null when the transaction failed and rolled back (see settleRetries).
   * `more` says the claim moved due rows out of the way and more may be due behind them.
   * It also ends the promised credits of `group` and `unsent` and holds those of the rows claimed;
   * when it fails, those of `group` and `unsent` stand as before.
   */
  commit(group: Finished[], unsent: ClaimedDelivery[], limit: number): Promise<Committed | null>;
};

/** The most rows a pass keeps ready behind those in flight, in multiples of `concurrency`. */
export const MAX_READY_DEPTH = 7;

/**
 * How many rows a pass keeps ready behind those in flight, in multiples of `concurrency`, from how
 * long its commits take and how long its sends take (recent averages). A claimed row can only go
 * out once the commit that claims it ends, so the ready rows must carry every slot through the next
 * commit: a slot sends `commitMs / sendMs` rows meanwhile. At least one (each slot's next row, so a
 * finished send is followed at once), at most MAX_READY_DEPTH. Slow receivers keep it at one: their
 * rows would only wait, leased, for a slot.
 */
export function readyDepth(commitMs: number, sendMs: number): number {
  if (!(sendMs > 0) || !(commitMs > sendMs)) return 1;
  return Math.min(MAX_READY_DEPTH, Math.ceil(commitMs / sendMs));
}

/** An average over recent samples, each new one weighing an eighth: a single slow commit or send moves it a little. */
function createAverage() {
  let value = 0;
  return {
    get value() {
      return value;
    },
    add(sample: number) {
      value = value === 0 ? sample : value + (sample - value) / 8;
    },
  };
}

/** The first pause before a failed settlement is committed again; each next one doubles, up to SETTLE_RETRY_MAX_MS. */
const SETTLE_RETRY_FIRST_MS = 100;
const SETTLE_RETRY_MAX_MS = 5_000;

/**
 * The pauses before each new try of a settlement whose transaction failed: 100 ms doubling to 5 s,
 * for as long as they add up to half the lease. Its rows stay leased all that while, so a try that
 * succeeds records attempts nobody sent again; past that, the rows are given up to their lease
 * (sent again once it runs out, at least once).
 */
export function settleRetries(leaseMs: number): number[] {
  const out: number[] = [];
  let total = 0;
  for (let pause = SETTLE_RETRY_FIRST_MS; total + pause <= leaseMs / 2; pause = Math.min(SETTLE_RETRY_MAX_MS, pause * 2)) {
    out.push(pause);
    total += pause;
  }
  return out;
}

/** Runs one pass until nothing is due, ready, in flight or unrecorded; winds down once `stopping()`. */
export async function runPass(deps: PassDeps, stopping: () => boolean): Promise<void> {
  const { concurrency, work, reservations } = deps;
  // Claimed (leased, credits promised) and waiting for a slot: live rows first, then replayed ones.
  const ready = createReadyQueue();
  // Claimed but not sent after all (stale, or the loop is stopping): leases dropped at the next commit.
  const unsent: ClaimedDelivery[] = [];
  // Attempts that finished and wait for the next commit; their slots are already taken again.
  const finished: Finished[] = [];
  let inFlight = 0;
  let canClaim = true;
  // Ids of the rows this pass holds (claimed, until recorded, given back or given up). A claim can
  // find one of them due again when the wall clock stepped forward past its lease: it is not sent twice.
  const holding = new Set<string>();
  // Pauses left before the next try of a settlement that failed; null while commits succeed.
  let retries: number[] | null = null;
  // The last claim moved due rows out of the way and found room for more: the next claim follows at
  // once, but only after the event loop ran (a run of such claims sends nothing to wait on, and
  // SQLite's driver answers synchronously, so it would otherwise hold the thread).
  let claimAgain = false;
  // False once a claim found fewer due rows than it asked for; recording outcomes (which can make
  // a retry or a payment's next webhook due) or an announcement sets it again.
  let mayBeDue = true;
  // Results that arrive in the same turn of the event loop join one commit.
  let commitQueued = false;
  // How long recent commits and sends took (monotonic ms): readyDepth sets the rows kept ready from them.
  const commitMs = createAverage();
  const sendMs = createAverage();
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
      const sentAt = deps.clock.monotonic();
      deps.send(d).then(
        (settlement) => {
          inFlight--;
          sendMs.add(deps.clock.monotonic() - sentAt);
          finished.push(settlement);
          fill();
          commitSoon();
        },
        (e) => {
          inFlight--;
          holding.delete(d.id);
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
    if (stopping() && ready.length > 0) unsent.push(...ready.takeAll());
    const claimedNow = inFlight + ready.length;
    // While a settlement is tried again, commits only record: a claim failing would hold it back.
    const room = stopping() || !canClaim || retries !== null ? 0 : (1 + readyDepth(commitMs.value, sendMs.value)) * concurrency - claimedNow;
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
    const commitStart = deps.clock.monotonic();
    const committed = await deps.commit(group, dropped, claim ? room : 0);
    // A refused commit (a full disk, the database away) says nothing of how long commits take.
    if (committed !== null) commitMs.add(deps.clock.monotonic() - commitStart);
    if (committed === null) {
      // Rolled back whole: nothing of it is stored. Try the same settlement again after a pause,
      // without sending anything again; give it up when the pauses run out or the loop stops.
      retries ??= settleRetries(deps.leaseMs);
      const pause = stopping() ? undefined : retries.shift();
      if (pause !== undefined && (group.length > 0 || dropped.length > 0)) {
        finished.unshift(...group);
        unsent.unshift(...dropped);
        await Bun.sleep(pause);
        continue;
      }
      if (group.length > 0 || dropped.length > 0) {
        for (const d of [...group.map((s) => s.delivery), ...dropped]) {
          reservations.free(d);
          holding.delete(d.id);
        }
        deps.log.error("delivery outcomes not recorded; their rows go out again after their lease", { count: group.length });
      }
      retries = null;
      canClaim = false;
    } else if (retries !== null) {
      if (group.length > 0) deps.log.info("delivery outcomes recorded after a failed commit", { count: group.length });
      retries = null;
      mayBeDue = true;
    } else if (claim) mayBeDue = committed.claimed.length === room || committed.more;
    else if (group.length > 0 || dropped.length > 0) mayBeDue = true;
    claimAgain = claim && committed !== null && committed.more;
    if (committed) {
      for (const s of group) holding.delete(s.delivery.id);
      for (const d of dropped) holding.delete(d.id);
      for (const d of committed.claimed) {
        // Already ours (in flight or ready): the claim only lengthened its lease; its promise was held twice.
        if (holding.has(d.id)) reservations.free(d);
        else {
          holding.add(d.id);
          ready.push(d);
        }
      }
      fill();
    }
  }
}

/**
 * Claimed rows waiting for a send slot, in three lanes each oldest first: the rows the claim's look
 * at the most recently due ones found (other accounts' new work while one account's backlog
 * drains), then live rows, then replayed ones (an events replay's bulk re-send). A row of a later
 * lane waits for the earlier lanes even when claimed earlier: other accounts' new rows do not
 * queue behind the backlog rows already held ready, and a live row claimed while a replay's batch
 * waits is the next sent, not the batch's last. The claim already puts live rows first within a
 * batch (claim.ts); this keeps the order across batches.
 */
function createReadyQueue() {
  const newest: ClaimedDelivery[] = [];
  const live: ClaimedDelivery[] = [];
  const replayed: ClaimedDelivery[] = [];
  return {
    get length() {
      return newest.length + live.length + replayed.length;
    },
    push(d: ClaimedDelivery) {
      (d.newest ? newest : d.replay === 1 ? replayed : live).push(d);
    },
    shift(): ClaimedDelivery | undefined {
      return newest.length > 0 ? newest.shift() : live.length > 0 ? live.shift() : replayed.shift();
    },
    takeAll(): ClaimedDelivery[] {
      return [...newest.splice(0), ...live.splice(0), ...replayed.splice(0)];
    },
  };
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
