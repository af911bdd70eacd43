import type { Transaction } from "kysely";
import type { Executor } from "../db/database.ts";
import { orderedClaimPlan } from "../db/primitives.ts";
import type { DB, Delivery } from "../db/schema.ts";
import { type DueDelivery, statementsOf } from "../db/statements.ts";
import { waitsForWebhook } from "./send.ts";

// Step 2 of a delivery: claiming due rows (leasing them) and giving back leases not used. The
// statements are each dialect's hand-written ones (db/statements.ts): the loop runs them thousands
// of times a second.

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

/** Runs `fn` in the caller's transaction, or in a write transaction of its own when given the database. */
export function inTransaction<T>(db: Executor, fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db as Transaction<DB>) : db.transaction().execute(fn);
}

/**
 * Claims up to `limit` due rows in one short write transaction (or the caller's) and leases them for
 * `leaseMs`, so a row whose sender dies becomes claimable again when the lease runs out (at least
 * once). A payment row waits until every lower sequence of its payment has succeeded or finally
 * failed. A row its account cannot pay for is set `paused` (no attempt recorded) until credits are
 * added; one that only clashes with credits promised to sends in flight, or set aside for /rpc
 * calls, is left pending for a later claim. A row whose webhook is disabled waits, pending and
 * unattempted, until it is enabled (parkUntilEnabled).
 */
export async function claimDueDeliveries(db: Executor, opts: ClaimOptions): Promise<ClaimResult> {
  const { nowMs } = opts;
  return inTransaction(db, async (trx) => {
    const statements = statementsOf(trx);
    // On PostgreSQL the claim locks the due rows until this transaction commits their lease, and
    // rows another daemon is claiming are passed over instead of claimed twice (SQLite: one writer).
    await orderedClaimPlan(trx);
    const { rows } = await trx.executeQuery(statements.selectDueDeliveries(nowMs, opts.limit));
    const promised = new Map(opts.reserved ?? []);
    const routes = new Map<string, AccountRoute>();
    const claimed: ClaimedDelivery[] = [];
    const paused: string[] = [];
    const waiting: string[] = [];
    for (const r of rows) {
      if (r.webhook_enabled !== 1 && waitsForWebhook(r, r)) {
        waiting.push(r.id);
        continue;
      }
      const price = opts.priceOf(r);
      if (price > 0) {
        const credits = Number(r.account_credits);
        if (credits < price) {
          paused.push(r.id);
          continue;
        }
        const held = promised.get(r.account_id) ?? 0;
        if (credits - Number(r.account_leased) - held < price) continue;
        promised.set(r.account_id, held + price);
      }
      let route = routes.get(r.account_id);
      if (!route) {
        const { webhook_url, webhook_enabled, payments_webhook_url, webhook_secret_enc } = r;
        routes.set(r.account_id, (route = { webhook_url, webhook_enabled, payments_webhook_url, webhook_secret_enc }));
      }
      // The row itself becomes the claimed delivery (the account columns stay on it, unused):
      // copying every column of every row showed up in profiles.
      const d = r as DueDelivery & ClaimedDelivery;
      d.route = route;
      d.price = price;
      claimed.push(d);
    }
    if (claimed.length > 0) {
      const leaseUntil = nowMs + opts.leaseMs;
      const ids = claimed.map((d) => d.id);
      await trx.executeQuery(statements.leaseDeliveries(ids, leaseUntil));
      for (const d of claimed) d.lease_until = leaseUntil;
    }
    if (paused.length > 0) {
      await trx.executeQuery(statements.pauseDeliveries(paused, nowMs));
    }
    if (waiting.length > 0) await parkUntilEnabled(trx, waiting, nowMs);
    return { claimed, paused };
  });
}

/** How long a row waiting for its disabled webhook stays out of the claim before it is looked at again. */
export const WAITING_RECHECK_MS = 3_600_000;

/**
 * Keeps rows whose webhook is disabled `pending`, without an attempt, out of the claims for
 * WAITING_RECHECK_MS: they do not crowd the due index meanwhile, and switching the webhook on
 * makes them due at once (outbox.ts, sendWaitingDeliveries). Rare, so built, not hand-written.
 */
async function parkUntilEnabled(trx: Transaction<DB>, ids: readonly string[], nowMs: number): Promise<void> {
  await trx
    .updateTable("deliveries")
    .set({ next_attempt_at: nowMs + WAITING_RECHECK_MS, updated_at: nowMs })
    .where("id", "in", ids)
    .execute();
}

/**
 * Gives back the leases of claimed rows that were not sent after all, so the next claim can take
 * them at once; a lease that is no longer the one the claim took is left alone.
 */
export async function releaseLeases(db: Executor, rows: readonly Pick<Delivery, "id" | "lease_until">[]): Promise<void> {
  const statements = statementsOf(db);
  for (const d of rows) {
    if (d.lease_until === null) continue;
    await db.executeQuery(statements.releaseLease(d.id, d.lease_until));
  }
}
