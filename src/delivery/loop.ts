import { deliveryPrice } from "../billing/pricing.ts";
import type { Config } from "../config/schema.ts";
import type { Db } from "../db/database.ts";
import type { Metrics } from "../http/metrics.ts";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/log.ts";
import { createWorker, type Worker } from "../lib/worker.ts";
import type { Resolver } from "../net/target-guard.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import { afterFailure } from "./backoff.ts";
import { type ClaimedDelivery, claimDueDeliveries, type Outcome, recordOutcomes, releaseLeases, type Settlement } from "./deliveries.ts";
import { attemptDelivery, chooseTarget, type DelivererDeps } from "./deliverer.ts";
import { webhookKey } from "./signer.ts";

export type DeliveryLoopDeps = {
  config: Config;
  db: Db;
  clock: Clock;
  log: Logger;
  box: SecretBox;
  metrics: Metrics;
  fetch: typeof fetch;
  resolveHost: Resolver;
  userAgent: string;
};

/** An attempt that finished, waiting to be recorded. */
type Finished = Settlement & { delivery: ClaimedDelivery };

/**
 * The delivery worker: a croner tick every `interval_seconds` plus `wake()` when work is queued.
 * A wake during a pass also makes the pass claim the new work at once. stop() waits (bounded by
 * delivery.shutdown_grace_ms) for sends in flight and their outcomes; claimed rows not yet sent
 * get their leases back, rows still unfinished at the bound stay leased.
 */
export type DeliveryLoop = Worker;

/**
 * Builds the loop. A pass keeps `concurrency` sends in flight and POSTs outside any transaction:
 * when one finishes, the next already-claimed row goes out at once, so the database is never on
 * the path from one request to the next. Its database work is a series of short write
 * transactions, one at a time, each recording the attempts that finished since the last (group
 * commit) and then claiming due rows (leasing them) to keep up to `concurrency` rows ready behind
 * the ones in flight, until nothing is due, ready, in flight or unrecorded.
 */
export function createDeliveryLoop(deps: DeliveryLoopDeps): DeliveryLoop {
  const cfg = deps.config.delivery;
  const policy = { maxAttempts: cfg.max_attempts, backoffSeconds: cfg.backoff_seconds };
  const deliverer: DelivererDeps = {
    fetch: deps.fetch,
    resolveHost: deps.resolveHost,
    clock: deps.clock,
    allowPrivateTargets: cfg.allow_private_targets,
    timeoutMs: cfg.timeout_ms,
    userAgent: deps.userAgent,
  };
  const priceOf = (d: { kind: string; event_type: string; network: string }) => deliveryPrice(deps.config, d);
  const leaseMs = cfg.lease_seconds * 1000;
  // A ready row still waiting for a slot after this long (every receiver slow) is not sent on this
  // lease: its lease is dropped and it is claimed afresh later, so a send never starts late in its lease.
  const readyForMs = Math.min(1000, leaseMs / 4);
  // Credits promised to claimed rows until their outcome is written, so concurrent sends of one
  // account never overspend it: a success is charged by the transaction that records it.
  const reserved = new Map<string, number>();
  const reserve = (d: ClaimedDelivery, sign: 1 | -1) => {
    if (d.price === 0) return;
    const left = (reserved.get(d.account_id) ?? 0) + sign * d.price;
    if (left > 0) reserved.set(d.account_id, left);
    else reserved.delete(d.account_id);
  };
  const work = createSignal();
  // A claim costs a scan of the due index, so a busy pass claims once a quarter of the room is
  // free, when it has nothing claimed, or at once when new work was announced.
  const claimBatch = Math.max(1, Math.ceil(cfg.concurrency / 4));
  let announced = false;

  async function send(d: ClaimedDelivery, keys: Map<string, Uint8Array>, attempt: DelivererDeps): Promise<Finished> {
    let key = keys.get(d.route.webhook_secret_enc);
    if (!key) {
      key = webhookKey(deps.box.open(d.route.webhook_secret_enc));
      keys.set(d.route.webhook_secret_enc, key);
    }
    const result = await attemptDelivery(attempt, d, chooseTarget(d, d.route), key);
    const outcome: Outcome = result.ok
      ? { ok: true, price: d.price }
      : { ok: false, next: afterFailure(d.attempts + 1, policy, deps.clock.now()) };
    return { delivery: d, attempt: result, outcome };
  }

  /**
   * One write transaction: records `group` (each success charged in it), drops the leases of
   * `unsent`, then claims up to `limit` due rows. Recording first lets the next webhook of a payment
   * go out in the same turn, and the group's promised credits are by then taken from the balance
   * the claim reads.
   */
  async function commitAndClaim(group: Finished[], unsent: ClaimedDelivery[], limit: number): Promise<ClaimedDelivery[] | null> {
    const nowMs = deps.clock.now();
    try {
      return await deps.db.transaction().execute(async (trx) => {
        if (group.length > 0) await recordOutcomes(trx, group, nowMs);
        if (unsent.length > 0) await releaseLeases(trx, unsent);
        if (limit === 0) return [];
        const result = await claimDueDeliveries(trx, { nowMs, leaseMs, limit, priceOf, reserved });
        if (result.paused.length > 0) {
          deps.metrics.inc("chainwatch_deliveries_paused_total", {}, result.paused.length);
          deps.log.info("deliveries paused for lack of credits", { count: result.paused.length });
        }
        return result.claimed;
      });
    } catch (e) {
      // E.g. the database stayed locked past busy_timeout. Unrecorded rows stay leased and go out
      // again once the lease runs out (at least once); the pass stops claiming and drains.
      deps.log.error("delivery outcomes not recorded / claim failed", { count: group.length, error: String(e) });
      return null;
    } finally {
      countAttempts(group);
    }
  }

  function countAttempts(group: Settlement[]): void {
    let succeeded = 0;
    let failed = 0;
    for (const { outcome } of group) {
      if (outcome.ok) succeeded++;
      else if (outcome.next.status === "failed") failed++;
    }
    const retry = group.length - succeeded - failed;
    if (succeeded > 0) deps.metrics.inc("chainwatch_delivery_attempts_total", { outcome: "succeeded" }, succeeded);
    if (failed > 0) deps.metrics.inc("chainwatch_delivery_attempts_total", { outcome: "failed" }, failed);
    if (retry > 0) deps.metrics.inc("chainwatch_delivery_attempts_total", { outcome: "retry" }, retry);
  }

  async function pass(stopping: () => boolean): Promise<void> {
    const keys = new Map<string, Uint8Array>();
    const attempt: DelivererDeps = { ...deliverer, checkedUrls: new Map() };
    // Claimed (leased, credits promised) and waiting for a slot, oldest first.
    const ready: ClaimedDelivery[] = [];
    // Claimed but not sent after all (stale, or the loop is stopping): leases dropped at the next commit.
    const unsent: ClaimedDelivery[] = [];
    // Attempts that finished and wait for the next commit; their slots are already taken again.
    const finished: Finished[] = [];
    let inFlight = 0;
    let canClaim = true;
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
    const fill = () => {
      while (inFlight < cfg.concurrency && ready.length > 0) {
        const d = ready.shift() as ClaimedDelivery;
        if (stopping() || deps.clock.now() - ((d.lease_until ?? 0) - leaseMs) > readyForMs) {
          unsent.push(d);
          commitSoon();
          continue;
        }
        inFlight++;
        send(d, keys, attempt).then(
          (settlement) => {
            inFlight--;
            finished.push(settlement);
            fill();
            commitSoon();
          },
          (e) => {
            inFlight--;
            reserve(d, -1);
            deps.log.error("delivery attempt not recorded", { delivery_id: d.id, error: String(e) });
            fill();
            commitSoon();
          },
        );
      }
    };

    for (;;) {
      if (stopping() && ready.length > 0) unsent.push(...ready.splice(0));
      const claimedNow = inFlight + ready.length;
      const room = stopping() || !canClaim ? 0 : 2 * cfg.concurrency - claimedNow;
      const claim = room > 0 && (announced || (mayBeDue && (room >= claimBatch || claimedNow === 0)));
      if (finished.length === 0 && unsent.length === 0 && !claim) {
        if (claimedNow === 0) break;
        await work.wait();
        continue;
      }
      if (claim) announced = false;
      const group = finished.splice(0);
      const dropped = unsent.splice(0);
      // Promised credits end here: the commit charges the group's successes and frees the dropped rows.
      for (const s of group) reserve(s.delivery, -1);
      for (const d of dropped) reserve(d, -1);
      const claimed = await commitAndClaim(group, dropped, claim ? room : 0);
      if (claimed === null) canClaim = false;
      else if (claim) mayBeDue = claimed.length === room;
      else if (group.length > 0 || dropped.length > 0) mayBeDue = true;
      if (claimed) {
        for (const d of claimed) reserve(d, 1);
        ready.push(...claimed);
        fill();
      }
    }
  }

  return createWorker({
    name: "delivery",
    log: deps.log,
    schedule: "* * * * * *",
    intervalSeconds: cfg.interval_seconds,
    runOnStart: true,
    stopGraceMs: cfg.shutdown_grace_ms,
    failure: "delivery pass failed",
    run: pass,
    nudge() {
      announced = true;
      work.notify();
    },
    onStop: () => work.notify(),
  });
}

/** A wake-up that is never lost: a notify before anyone waits is kept for the next wait. */
function createSignal() {
  let pending = false;
  let resolve: (() => void) | null = null;
  return {
    notify() {
      if (resolve) {
        const r = resolve;
        resolve = null;
        r();
      } else pending = true;
    },
    wait(): Promise<void> {
      if (pending) {
        pending = false;
        return Promise.resolve();
      }
      return new Promise<void>((r) => {
        resolve = r;
      });
    },
  };
}
