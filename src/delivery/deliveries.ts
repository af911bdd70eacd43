import type { Transaction } from "kysely";
import { recordUsage } from "../billing/usage.ts";
import type { Db, Executor } from "../db/database.ts";
import type { DB, Delivery } from "../db/schema.ts";
import { rfc3339 } from "../lib/time.ts";
import type { FailureOutcome } from "./backoff.ts";
import * as outboxSql from "./outbox-sql.ts";


/** Statuses of an outbox row (DESIGN §5). */
export const DELIVERY_STATUSES = ["pending", "succeeded", "failed", "paused"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** The account columns that decide where and how a delivery is sent, read when it is claimed. */
export type AccountRoute = {
  webhook_url: string | null;
  webhook_enabled: number;
  payments_webhook_url: string | null;
  webhook_secret_enc: string;
};

/** A claimed row with its account's current route; it stays leased until its outcome is recorded. */
export type ClaimedDelivery = Delivery & { route: AccountRoute; price: number };

export type ClaimOptions = {
  nowMs: number;
  leaseMs: number;
  limit: number;
  /** Credits a successful send of this row will cost (0 for tests or with billing off). */
  priceOf: (d: Pick<Delivery, "kind" | "event_type" | "network">) => number;
  /** Credits already promised to sends in flight, per account; claiming never promises more than the balance. */
  reserved?: ReadonlyMap<string, number>;
};

export type ClaimResult = { claimed: ClaimedDelivery[]; paused: string[] };

type ClaimRow = Delivery & {
  account_credits: number | string;
  webhook_url: string | null;
  webhook_enabled: number;
  payments_webhook_url: string | null;
  webhook_secret_enc: string;
};

/** Runs `fn` in the caller's transaction, or in a write transaction of its own when given the database. */
function inTransaction<T>(db: Executor, fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db as Transaction<DB>) : db.transaction().execute(fn);
}

/**
 * Claims up to `limit` due rows in one short write transaction (or the caller's) and leases them for
 * `leaseMs`, so a row whose sender dies becomes claimable again when the lease runs out (at least
 * once). A payment row waits until every lower sequence of its payment has succeeded or finally
 * failed. A row its account cannot pay for is set `paused` (no attempt recorded) until credits are
 * added; one that only clashes with credits promised to sends in flight is left pending for a later claim.
 */
export async function claimDueDeliveries(db: Executor, opts: ClaimOptions): Promise<ClaimResult> {
  const { nowMs } = opts;
  return inTransaction(db, async (trx) => {
    const { rows } = await trx.executeQuery<ClaimRow>(outboxSql.selectDue(nowMs, opts.limit));
    const promised = new Map(opts.reserved ?? []);
    const routes = new Map<string, AccountRoute>();
    const claimed: ClaimedDelivery[] = [];
    const paused: string[] = [];
    for (const r of rows) {
      const price = opts.priceOf(r);
      if (price > 0) {
        const credits = Number(r.account_credits);
        if (credits < price) {
          paused.push(r.id);
          continue;
        }
        const held = promised.get(r.account_id) ?? 0;
        if (credits - held < price) continue;
        promised.set(r.account_id, held + price);
      }
      let route = routes.get(r.account_id);
      if (!route) {
        const { webhook_url, webhook_enabled, payments_webhook_url, webhook_secret_enc } = r;
        routes.set(r.account_id, (route = { webhook_url, webhook_enabled, payments_webhook_url, webhook_secret_enc }));
      }
      // The row itself becomes the claimed delivery (the account columns stay on it, unused):
      // copying every column of every row showed up in profiles.
      const d = r as ClaimRow & ClaimedDelivery;
      d.route = route;
      d.price = price;
      claimed.push(d);
    }
    if (claimed.length > 0) {
      const leaseUntil = nowMs + opts.leaseMs;
      await trx.executeQuery(outboxSql.lease(claimed.map((d) => d.id), leaseUntil));
      for (const d of claimed) d.lease_until = leaseUntil;
    }
    if (paused.length > 0) await trx.executeQuery(outboxSql.pause(paused, nowMs));
    return { claimed, paused };
  });
}

/**
 * Gives back the leases of claimed rows that were not sent after all, so the next claim can take
 * them at once; a lease that is no longer the one the claim took is left alone.
 */
export async function releaseLeases(db: Executor, rows: readonly Pick<Delivery, "id" | "lease_until">[]): Promise<void> {
  for (const d of rows) if (d.lease_until !== null) await db.executeQuery(outboxSql.release(d.id, d.lease_until));
}

/** One attempt as it is logged (DESIGN §5: status, duration, error, first 1 KiB of the response). */
export type AttemptLog = {
  url: string | null;
  startedAt: number;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  snippet: string | null;
};

export type Outcome = { ok: true; price: number } | { ok: false; next: FailureOutcome };

/** A finished attempt waiting to be recorded. */
export type Settlement = { delivery: Delivery; attempt: AttemptLog; outcome: Outcome };

/**
 * Records finished attempts in one short transaction (or the caller's: the loop's group commit
 * writes results that complete together, and claims in the same transaction). Each success is
 * charged in the same transaction that marks it succeeded (credits and the usage series), so a
 * delivery is billed exactly when it is settled. A row is settled only while still pending (not
 * re-queued or settled meanwhile); returns the ids settled, and nothing else is logged or billed.
 * Set-based: one UPDATE per distinct success (answer, price), one multi-row INSERT of the attempt
 * log, one charge and one usage row per account.
 */
export async function recordOutcomes(db: Executor, items: readonly Settlement[], nowMs: number): Promise<Set<string>> {
  if (items.length === 0) return new Set();
  return inTransaction(db, async (trx) => {
    const settled = new Set<string>();
    // Successes with the same answer and price share one UPDATE: on a busy loop most of a group does.
    const groups = new Map<string, { statusCode: number | null; price: number; ids: string[] }>();
    for (const { delivery, attempt, outcome } of items) {
      if (!outcome.ok) {
        const failed = {
          id: delivery.id,
          status: outcome.next.status,
          attempts: delivery.attempts + 1,
          nextAttemptAt: outcome.next.nextAttemptAt,
          statusCode: attempt.statusCode,
          error: attempt.error,
        };
        const res = await trx.executeQuery(outboxSql.markFailed(failed, nowMs));
        if (Number(res.numAffectedRows ?? 0) > 0) settled.add(delivery.id);
        continue;
      }
      const key = `${attempt.statusCode}:${outcome.price}`;
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { statusCode: attempt.statusCode, price: outcome.price, ids: [] }));
      g.ids.push(delivery.id);
    }
    for (const g of groups.values()) {
      const { rows } = await trx.executeQuery(outboxSql.markSucceeded(g.ids, g.statusCode, g.price, nowMs));
      for (const r of rows) settled.add(r.id);
    }
    const done = settled.size === items.length ? items : items.filter((s) => settled.has(s.delivery.id));
    if (done.length === 0) return settled;
    for (let at = 0; at < done.length; at += outboxSql.ATTEMPT_ROWS_PER_INSERT) {
      const rows = done.slice(at, at + outboxSql.ATTEMPT_ROWS_PER_INSERT).map(({ delivery, attempt }) => ({
        deliveryId: delivery.id,
        attempt: delivery.attempts + 1,
        url: attempt.url,
        startedAt: attempt.startedAt,
        durationMs: attempt.durationMs,
        statusCode: attempt.statusCode,
        error: attempt.error,
        snippet: attempt.snippet,
      }));
      await trx.executeQuery(outboxSql.insertAttempts(rows));
    }
    // Billing and the usage series, summed per account.
    const bill = new Map<string, { credits: number; deliveries: number }>();
    for (const { delivery, outcome } of done) {
      if (!outcome.ok || delivery.kind === "test") continue;
      let b = bill.get(delivery.account_id);
      if (!b) bill.set(delivery.account_id, (b = { credits: 0, deliveries: 0 }));
      b.credits += outcome.price;
      b.deliveries += 1;
    }
    for (const [accountId, b] of bill) {
      if (b.credits > 0) await trx.executeQuery(outboxSql.chargeAccount(accountId, b.credits, nowMs));
      await recordUsage(trx, accountId, nowMs, b);
    }
    return settled;
  });
}

export type ListFilter = { accountId?: string; status?: string; limit: number };

/** Newest first. */
export function listDeliveries(db: Db, f: ListFilter): Promise<Delivery[]> {
  let q = db.selectFrom("deliveries").selectAll();
  if (f.accountId) q = q.where("account_id", "=", f.accountId);
  if (f.status) q = q.where("status", "=", f.status);
  return q.orderBy("created_at", "desc").orderBy("id", "desc").limit(f.limit).execute();
}

export type AttemptRow = Awaited<ReturnType<typeof attemptsOf>>[number];

/** The attempt log of some deliveries, oldest attempt first. */
export async function attemptsOf(db: Db, deliveryIds: string[]) {
  if (deliveryIds.length === 0) return [];
  return db
    .selectFrom("delivery_attempts")
    .selectAll()
    .where("delivery_id", "in", deliveryIds)
    .orderBy("delivery_id")
    .orderBy("attempt")
    .execute();
}

export function getDelivery(db: Executor, id: string): Promise<Delivery | undefined> {
  return db.selectFrom("deliveries").selectAll().where("id", "=", id).executeTakeFirst();
}

export type RetryResult = { ok: true; delivery: Delivery } | { ok: false; error: string };

/**
 * Re-queues a delivery that has not succeeded: pending, due now, attempts back to 0 so it gets a
 * full `max_attempts` again, lease dropped. A succeeded delivery is not sent twice on request.
 */
export async function retryDelivery(db: Db, id: string, nowMs: number): Promise<RetryResult> {
  return db.transaction().execute(async (trx) => {
    const d = await getDelivery(trx, id);
    if (!d) return { ok: false, error: `no such delivery: ${id}` };
    if (d.status === "succeeded") return { ok: false, error: `delivery ${id} already succeeded` };
    await trx
      .updateTable("deliveries")
      .set({ status: "pending", attempts: 0, next_attempt_at: nowMs, lease_until: null, completed_at: null, updated_at: nowMs })
      .where("id", "=", id)
      .execute();
    return { ok: true, delivery: (await getDelivery(trx, id)) as Delivery };
  });
}

/** The admin view of a delivery (CLI); timestamps RFC 3339, the body left out (it is the event). */
export function deliveryView(d: Delivery, attempts?: AttemptRow[]) {
  return {
    id: d.id,
    account_id: d.account_id,
    kind: d.kind,
    event_type: d.event_type,
    network: d.network,
    event_id: d.event_id,
    payment_id: d.payment_id,
    sequence: d.sequence,
    status: d.status,
    attempts: d.attempts,
    last_status_code: d.last_status_code,
    last_error: d.last_error,
    credits_charged: Number(d.credits_charged),
    next_attempt_at: d.status === "pending" ? rfc3339(d.next_attempt_at) : null,
    created_at: rfc3339(d.created_at),
    completed_at: d.completed_at === null ? null : rfc3339(d.completed_at),
    ...(attempts
      ? {
          attempt_log: attempts.map((a) => ({
            attempt: a.attempt,
            url: a.url,
            started_at: rfc3339(a.started_at),
            duration_ms: a.duration_ms,
            status_code: a.status_code,
            error: a.error,
            response: a.response_snippet,
          })),
        }
      : {}),
  };
}
