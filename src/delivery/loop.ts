import { deliveryPrice } from "../billing/pricing.ts";
import type { Config } from "../config/schema.ts";
import type { Db } from "../db/database.ts";
import type { Metrics } from "../lib/metrics.ts";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/log.ts";
import { createWorker, type Worker } from "../lib/worker.ts";
import type { Resolver } from "../net/target-guard.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import { type ClaimedDelivery, claimDueDeliveries, releaseLeases } from "./claim.ts";
import { type Committed, createWorkSignal, type Finished, runPass } from "./pass.ts";
import { type CreditReservations, createCreditReservations } from "./reservations.ts";
import { chooseTarget } from "./route.ts";
import { attemptDelivery, type SendDeps } from "./send.ts";
import { outcomeOf, recordOutcomes, type Settlement } from "./settle.ts";
import { createEndpointHealth, type EndpointHealth } from "./endpoint-health.ts";
import { type HeldForCredits, raiseCreditsExhausted } from "./delivery-notices.ts";
import type { EndpointAttempt, EndpointOutcomes, FailingEndpoint } from "./endpoint-outcomes.ts";
import { previousSecretSigns, webhookKey } from "./signer.ts";
import { createDeliveryThrottle, type DeliveryThrottle } from "./throttle.ts";
import type { SharedRateBudget } from "../db/primitives.ts";
import { isStorageFull } from "../db/storage-full.ts";

// The delivery worker wires the steps together: claim (claim.ts) → send (send.ts) → settle
// (settle.ts), with credits held in between (reservations.ts), scheduled by runPass (pass.ts).

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
  /** Credits promised to claimed rows; shared with /rpc's meter, which leaves them alone (a new set when absent). */
  reservations?: CreditReservations;
  /**
   * The endpoints' owner (webhooks/health-watch.ts): told each batch's settled attempts, it keeps
   * their health and switches off one that failed for `delivery.disable_after_hours`.
   */
  endpoints: EndpointOutcomes;
  /**
   * The per-second budgets the webhooks' rate limits share with other daemons on the same
   * PostgreSQL database (db/primitives.ts); absent or null: this daemon counts alone (SQLite).
   */
  rateBudget?: SharedRateBudget | null;
};

/**
 * The delivery worker: a croner tick every `interval_seconds` plus `wake()` when work is queued.
 * A wake during a pass also makes the pass claim the new work at once. stop() waits (bounded by
 * delivery.shutdown_grace_ms) for sends in flight and their outcomes; claimed rows not yet sent
 * get their leases back, rows still unfinished at the bound stay leased.
 */
export type DeliveryLoop = Worker;

/** Builds the loop over the [delivery] config; see runPass for how a pass schedules the steps. */
export function createDeliveryLoop(deps: DeliveryLoopDeps): DeliveryLoop {
  const cfg = deps.config.delivery;
  const leaseMs = cfg.lease_seconds * 1000;
  const work = createWorkSignal();
  const reservations = deps.reservations ?? createCreditReservations();
  const throttle = createDeliveryThrottle({ budget: deps.rateBudget ?? null });
  // Rows of a rate-limited webhook wait for their slots between ticks: wake the loop at the next one.
  const slotTimer = createWakeTimer(() => worker.wake());
  const commit = groupCommit(deps, leaseMs, reservations, throttle, (nowMs) => slotTimer.at(throttle.nextSlotAfter(nowMs), nowMs));
  // One per loop, not per pass: an endpoint's failing/recovered state outlives a pass.
  const health = createEndpointHealth(deps.log);
  const worker = createWorker({
    name: "delivery",
    log: deps.log,
    schedule: "* * * * * *",
    intervalSeconds: cfg.interval_seconds,
    runOnStart: true,
    stopGraceMs: cfg.shutdown_grace_ms,
    failure: "delivery pass failed",
    run: (stopping) =>
      runPass(
        {
          concurrency: cfg.concurrency,
          // A claim costs a scan of the due index, so a busy pass claims once a quarter of the room is
          // free, when it has nothing claimed, or at once when new work was announced.
          claimBatch: Math.max(1, Math.ceil(cfg.concurrency / 4)),
          leaseMs,
          // A ready row still waiting for a slot after this long (every receiver slow) is not sent on this
          // lease: its lease is dropped and it is claimed afresh later, so a send never starts late in its lease.
          readyForMs: Math.min(1000, leaseMs / 4),
          clock: deps.clock,
          log: deps.log,
          work,
          reservations,
          send: passSender(deps, health),
          commit,
        },
        stopping,
      ),
    nudge: () => work.announce(),
    onStop: () => {
      slotTimer.cancel();
      work.notify();
    },
  });
  return worker;
}

/** The most often a claim also looks at the most recently due rows (claim.ts). */
const NEWEST_EVERY_MS = 10;

/** One timer that fires `fire` at the earliest time asked for; asking for a later time keeps the earlier one. */
function createWakeTimer(fire: () => void) {
  let timer: ReturnType<typeof setTimeout> | null = null;
  let firesAt = Number.POSITIVE_INFINITY;
  return {
    at(whenMs: number | null, nowMs: number) {
      if (whenMs === null || whenMs >= firesAt) return;
      if (timer) clearTimeout(timer);
      firesAt = whenMs;
      timer = setTimeout(() => {
        timer = null;
        firesAt = Number.POSITIVE_INFINITY;
        fire();
      }, Math.max(0, whenMs - nowMs));
      // A pending slot never keeps the process alive on its own.
      timer.unref?.();
    },
    cancel() {
      if (timer) clearTimeout(timer);
      timer = null;
      firesAt = Number.POSITIVE_INFINITY;
    },
  };
}

/** Opened webhook secrets the send step keeps; past this many (rotations leave old ones behind) it starts afresh. */
const MAX_OPENED_SECRETS = 10_000;

/**
 * The send step for one pass: opens each endpoint's secret once, reuses target checks (see
 * SendDeps.checkedUrls), and says what each attempt came to. While a rotation's grace period lasts
 * (by the loop's clock), the previous secret signs too.
 */
function passSender(deps: DeliveryLoopDeps, health: EndpointHealth): (d: ClaimedDelivery) => Promise<Finished> {
  const cfg = deps.config.delivery;
  const policy = { maxAttempts: cfg.max_attempts, backoffSeconds: cfg.backoff_seconds };
  // Keyed by the sealed string: a rotated secret is a new string, so it is opened afresh.
  const keys = new Map<string, Uint8Array>();
  const keyOf = (sealed: string) => {
    let key = keys.get(sealed);
    if (!key) {
      if (keys.size >= MAX_OPENED_SECRETS) keys.clear();
      key = webhookKey(deps.box.open(sealed));
      keys.set(sealed, key);
    }
    return key;
  };
  const sendDeps: SendDeps = {
    fetch: deps.fetch,
    resolveHost: deps.resolveHost,
    clock: deps.clock,
    allowPrivateTargets: cfg.allow_private_targets,
    timeoutMs: cfg.timeout_ms,
    userAgent: deps.userAgent,
    checkedUrls: new Map(),
  };
  const noKey = new Uint8Array(0);
  return async (d) => {
    const { route } = d;
    const target = chooseTarget(d, route);
    // A row with nowhere to go (no URL, or its endpoint removed) is not signed: attemptDelivery records the failure.
    const key = target.ok && route.secretEnc !== null ? keyOf(route.secretEnc) : noKey;
    const previous = route.previousSecretEnc;
    // Most endpoints have no rotated-out secret: they pay nothing for the check.
    const previousKey = target.ok && previous !== null && previousSecretSigns(previous, route.previousSecretExpiresAt, deps.clock.now()) ? keyOf(previous) : null;
    const attempt = await attemptDelivery(sendDeps, d, target, key, previousKey);
    health.record(d.account_id, d.id, attempt);
    return { delivery: d, attempt, outcome: outcomeOf(attempt, d, policy, deps.clock.now()) };
  };
}

/**
 * The settle and claim steps as one write transaction: records `group` (each success charged in
 * it), drops the leases of `unsent`, then claims up to `limit` due rows. Recording first lets the
 * next webhook of a payment go out in the same turn, and the group's promised credits are by then
 * taken from the balance the claim reads.
 *
 * Promises change inside the transaction: those of `group` and `unsent` end once their charges are
 * written, those of the claimed rows begin before the claim commits. /rpc's meter reads them while
 * it holds the account (one writer on SQLite, the account's row lock on PostgreSQL), so it never
 * sees a promise gone before its charge, nor a claimed row without its promise.
 */
function groupCommit(
  deps: DeliveryLoopDeps,
  leaseMs: number,
  reservations: CreditReservations,
  throttle: DeliveryThrottle,
  afterClaim: (nowMs: number) => void,
) {
  const priceOf = (d: { kind: string; event_type: string; network: string }) => deliveryPrice(deps.config, d);
  const defaultMaxRps = deps.config.delivery.max_rps;
  // When a claim last also looked at the most recently due rows (claim.ts): a look every
  // NEWEST_EVERY_MS keeps other accounts' new work moving behind a backlog; one every claim would
  // cost a statement per claim for nothing while a single backlog drains.
  let newestAt = Number.NEGATIVE_INFINITY;
  return async (group: Finished[], unsent: ClaimedDelivery[], limit: number): Promise<Committed | null> => {
    const nowMs = deps.clock.now();
    // Endpoints failing long enough to be switched off, found while recording the group.
    let failing: FailingEndpoint[] = [];
    let ended = false;
    const endPromises = () => {
      if (ended) return;
      ended = true;
      for (const s of group) reservations.free(s.delivery);
      for (const d of unsent) reservations.free(d);
    };
    let claimed: ClaimedDelivery[] = [];
    // Accounts whose deliveries this commit began to hold for lack of credits (their notice raised here).
    let heldNow: HeldForCredits[] = [];
    try {
      const result = await deps.db.transaction().execute(async (trx): Promise<Committed> => {
        if (group.length > 0) {
          const settled = await recordOutcomes(trx, group, nowMs);
          const attempts = endpointAttempts(group, settled);
          if (attempts.length > 0) failing = await deps.endpoints.record(trx, attempts, nowMs);
        }
        if (unsent.length > 0) await releaseLeases(trx, unsent);
        endPromises();
        if (limit === 0) return { claimed: [], more: false };
        const newest = nowMs - newestAt >= NEWEST_EVERY_MS || nowMs < newestAt;
        const result = await claimDueDeliveries(trx, { nowMs, leaseMs, limit, priceOf, reserved: reservations.byAccount, throttle, defaultMaxRps, newest });
        if (result.lookedNewest) newestAt = nowMs;
        claimed = result.claimed;
        for (const d of claimed) reservations.hold(d);
        if (result.paused.length > 0) {
          deps.metrics.inc("chainwatch_deliveries_paused_total", {}, result.paused.length);
          deps.log.debug("deliveries paused for lack of credits", { count: result.paused.length });
        }
        if (result.held.length > 0) heldNow = await raiseCreditsExhausted(trx, result.held, nowMs);
        return { claimed, more: result.more };
      });
      // One line per hold, not per delivery: a notice already open (this run or an earlier one, this
      // daemon or another) means it was said; adding credits resolves it, and a new hold says it again.
      for (const h of heldNow) {
        deps.log.warn("webhook deliveries held: credits cannot pay", {
          account_id: h.accountId,
          balance: h.balance,
          price: h.price,
          event_type: h.eventType,
        });
      }
      // Counted once recorded: a group committed again after a failure counts once.
      countAttempts(deps.metrics, group);
      if (limit > 0) afterClaim(nowMs);
      if (failing.length > 0) await deps.endpoints.switchOff(failing, nowMs);
      return result;
    } catch (e) {
      // E.g. a full disk, or the database locked past busy_timeout: the transaction rolled back
      // whole. The pass commits the group and the unsent rows again (runPass), so their promises
      // stand as they were before this commit. Rows claimed in it were never leased: theirs end.
      if (ended) {
        for (const s of group) reservations.hold(s.delivery);
        for (const d of unsent) reservations.hold(d);
      }
      for (const d of claimed) reservations.free(d);
      // A full disk is logged once by the database's storage watch, not on every commit.
      const log = isStorageFull(e) ? deps.log.debug : deps.log.error;
      log.call(deps.log, "delivery outcomes not recorded / claim failed", { count: group.length, error: String(e) });
      return null;
    }
  };
}

/** The group's settled attempts that went to a webhook endpoint's URL: those count toward its health. */
function endpointAttempts(group: readonly Finished[], settled: ReadonlySet<string>): EndpointAttempt[] {
  const out: EndpointAttempt[] = [];
  for (const s of group) {
    const endpointId = s.delivery.route.endpointId;
    if (endpointId === null || s.attempt.url === null || !settled.has(s.delivery.id)) continue;
    out.push({ endpointId, accountId: s.delivery.account_id, attempt: s.attempt });
  }
  return out;
}

function countAttempts(metrics: Metrics, group: Settlement[]): void {
  let succeeded = 0;
  let failed = 0;
  for (const { outcome } of group) {
    if (outcome.ok) succeeded++;
    else if (outcome.next.status === "failed") failed++;
  }
  const retry = group.length - succeeded - failed;
  if (succeeded > 0) metrics.inc("chainwatch_delivery_attempts_total", { outcome: "succeeded" }, succeeded);
  if (failed > 0) metrics.inc("chainwatch_delivery_attempts_total", { outcome: "failed" }, failed);
  if (retry > 0) metrics.inc("chainwatch_delivery_attempts_total", { outcome: "retry" }, retry);
}

