import { sql } from "kysely";
import type { Db } from "../../db/database.ts";
import { claimLockClause, serialize } from "../../db/primitives.ts";
import type { Clock } from "../../lib/clock.ts";
import { parseJson } from "../../lib/json.ts";
import type { Logger } from "../../lib/log.ts";
import { rfc3339 } from "../../lib/time.ts";
import { createWorker, type Worker } from "../../lib/worker.ts";
import { nextStates, type RiskLevel } from "../lifecycle.ts";
import { applyTransitions } from "../transitions.ts";
import type { Screener, ScreeningResult, StoredAml } from "./screening.ts";

/** Retry delays after failed screenings; the last one repeats forever (a provider is never given up on). */
export const AML_BACKOFF_MS: readonly number[] = [1_000, 2_000, 5_000, 10_000, 30_000, 60_000];

/** Delay before the next try after `attempts` failed ones. */
export function amlRetryDelay(attempts: number, backoff: readonly number[] = AML_BACKOFF_MS): number {
  return backoff[Math.min(Math.max(attempts, 1), backoff.length) - 1];
}

export type AmlWorkerDeps = {
  db: Db;
  clock: Clock;
  log: Logger;
  screener: Screener;
  failLevels: readonly RiskLevel[];
  /** How long a claimed job is hidden from other runs; must outlast one screening call. */
  leaseMs: number;
  wakeDelivery: () => void;
  backoffMs?: readonly number[];
  /** Jobs screened at once per claim. */
  concurrency?: number;
};

type ClaimedJob = { payment_id: string; network: string; address: string; tx_hash: string | null; attempts: number };

/** Leases up to `limit` due jobs: the lease keeps a slow screening from being started twice. */
export async function claimDueAmlJobs(db: Db, nowMs: number, leaseMs: number, limit: number): Promise<ClaimedJob[]> {
  // A plain read first: an idle tick should not take SQLite's writer lock.
  const any = await db.selectFrom("aml_jobs").select("payment_id").where("next_attempt_at", "<=", nowMs).limit(1).executeTakeFirst();
  if (!any) return [];
  return db.transaction().execute(async (trx) => {
    const jobs = await trx
      .selectFrom("aml_jobs")
      .select(["payment_id", "network", "address", "tx_hash", "attempts"])
      .where("next_attempt_at", "<=", nowMs)
      .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<=", nowMs)]))
      .orderBy("next_attempt_at")
      .limit(limit)
      .modifyEnd(sql.raw(claimLockClause(trx, "aml_jobs")))
      .execute();
    if (jobs.length === 0) return [];
    await trx
      .updateTable("aml_jobs")
      .set({ lease_until: nowMs + leaseMs, attempts: sql<number>`attempts + 1` })
      .where(
        "payment_id",
        "in",
        jobs.map((j) => j.payment_id),
      )
      .execute();
    return jobs.map((j) => ({ ...j, attempts: j.attempts + 1 }));
  });
}

/**
 * Stores a screening verdict and applies it in one transaction: the AML object is written only if
 * the order has none yet (stored once, then reused), the order moves to paid or failed with its
 * webhook, and the job is deleted. Returns whether the order moved.
 */
export async function completeAmlJob(
  db: Db,
  job: { payment_id: string },
  result: ScreeningResult,
  opts: { nowMs: number; failLevels: readonly RiskLevel[] },
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    // A payment's transitions (and their sequence, max + 1) are written one transaction at a time.
    await serialize(trx, "ingest");
    await trx.deleteFrom("aml_jobs").where("payment_id", "=", job.payment_id).execute();
    const order = await trx.selectFrom("payments").selectAll().where("id", "=", job.payment_id).executeTakeFirst();
    // Only an order waiting on screening takes a verdict; anything else was settled by an earlier run.
    if (!order || order.status !== "aml_check") return false;
    const stored = parseJson<StoredAml | null>(order.aml, null) ?? { ...result, checked_at: rfc3339(opts.nowMs) };
    const states = nextStates("aml_check", { kind: "screening_done", riskLevel: stored.risk_level, failLevels: opts.failLevels });
    await applyTransitions(trx, { order: { ...order, aml: JSON.stringify(stored) }, states, txHash: null, nowMs: opts.nowMs });
    return states.length > 0;
  });
}

/**
 * The AML worker: a one-second cron plus `wake()`, for the ingest service to call after it queued
 * jobs. Screening (network I/O) always happens outside any transaction.
 */
export function createAmlWorker(deps: AmlWorkerDeps): Worker {
  const backoff = deps.backoffMs ?? AML_BACKOFF_MS;
  const concurrency = deps.concurrency ?? 8;

  async function screenOne(j: ClaimedJob): Promise<boolean> {
    const outcome = await deps.screener({ network: j.network, address: j.address === "" ? null : j.address, txHash: j.tx_hash });
    const nowMs = deps.clock.now();
    if (outcome.ok) return completeAmlJob(deps.db, j, outcome.result, { nowMs, failLevels: deps.failLevels });
    const delay = amlRetryDelay(j.attempts, backoff);
    deps.log.warn("aml screening failed; will retry", { payment_id: j.payment_id, attempts: j.attempts, retry_in_ms: delay, error: outcome.error });
    await deps.db
      .updateTable("aml_jobs")
      .set({ next_attempt_at: nowMs + delay, lease_until: null, last_error: outcome.error.slice(0, 1024) })
      .where("payment_id", "=", j.payment_id)
      .execute();
    return false;
  }

  async function drain(stopping: () => boolean): Promise<void> {
    // Failed jobs are rescheduled into the future, so this ends once every due job was tried.
    while (!stopping()) {
      const jobs = await claimDueAmlJobs(deps.db, deps.clock.now(), deps.leaseMs, concurrency);
      if (jobs.length === 0) return;
      const moved = await Promise.all(jobs.map(screenOne));
      if (moved.some(Boolean)) deps.wakeDelivery();
    }
  }

  return createWorker({ name: "aml-screening", log: deps.log, schedule: "* * * * * *", failure: "aml worker failed", run: drain });
}
