import type { Transaction } from "kysely";
import type { Executor } from "../db/database.ts";
import { inTransaction } from "../db/executor.ts";
import { orderedClaimPlan } from "../db/primitives.ts";
import type { DB, Delivery } from "../db/schema.ts";
import type { HeldForCredits } from "./delivery-notices.ts";
import { chooseTarget, type EndpointRoute, goesToEndpoint, waitsForEndpoint } from "./route.ts";
import { deferToSlots, hasSlot, LATE_MS, lastRateSlot, resumeLateSlots, type Slot } from "./rate-slots.ts";
import { deliveryStatements } from "./sql/dialects.ts";
import type { ClaimAccount, ClaimEndpoint, DueDelivery } from "./sql/statements.ts";
import type { DeliveryThrottle } from "./throttle.ts";

// Step 2 of a delivery: claiming due rows (leasing them) and giving back leases not used. The
// statements are each dialect's hand-written ones (sql/): the loop runs them thousands
// of times a second.

/**
 * A claimed row with its endpoint's current route; it stays leased until its outcome is recorded.
 * `newest`: found by the look at the most recently due rows (another account's new work while a
 * backlog drains), which the pass sends ahead of the rows it already holds ready.
 */
export type ClaimedDelivery = DueDelivery & { route: EndpointRoute; price: number; newest: boolean };

export type ClaimOptions = {
  nowMs: number;
  leaseMs: number;
  limit: number;
  /** Credits a successful send of this row will cost (0 for tests or with billing off). */
  priceOf: (d: Pick<Delivery, "kind" | "event_type" | "network">) => number;
  /** Credits already promised to sends in flight, per account; claiming never promises more than the balance. */
  reserved?: ReadonlyMap<string, number>;
  /** Paces the webhooks of endpoints with a delivery rate limit (throttle.ts); none is paced without it. */
  throttle?: DeliveryThrottle;
  /** `delivery.max_rps`: the limit of endpoints that set none of their own (0: no limit). */
  defaultMaxRps?: number;
  /** Whether this claim may also look at the most recently due rows when behind (default true); the loop spaces those looks out. */
  newest?: boolean;
};

/**
 * The rows claimed, those paused for lack of credits (and, once per account, the first of them:
 * what it costs against the balance), and `more`: the batch was full of due rows
 * and some of them were moved out of the way (paused, parked or pushed back to a slot), so more may
 * be due behind them: claim again at once.
 */
export type ClaimResult = { claimed: ClaimedDelivery[]; paused: string[]; held: HeldForCredits[]; more: boolean; lookedNewest: boolean };

/**
 * Claims up to `limit` due rows in one short write transaction (or the caller's) and leases them for
 * `leaseMs`, so a row whose sender dies becomes claimable again when the lease runs out (at least
 * once). A payment row waits until every lower sequence of its payment has succeeded or finally
 * failed. A row its account cannot pay for is set `paused` (no attempt recorded) until credits are
 * added; one that only clashes with credits promised to sends in flight, or set aside for /rpc
 * calls, is left pending for a later claim. A row of a disabled account is paused too, whatever it
 * costs, until the account is enabled (accounts/account-state.ts resumes it as a credit does). A row whose endpoint is disabled waits, pending and
 * unattempted, until it is enabled (parkUntilEnabled). A row for an endpoint with a rate limit goes
 * now only when the throttle has room for it this instant; else it waits for its slot (rate-slots.ts).
 *
 * Live rows come first, oldest due first; replayed rows (an events replay: a bulk re-send the
 * account holder asked for) fill only the room live rows leave, so however large a replay backlog,
 * every account's live webhooks are claimed ahead of it. When the live rows fill the batch and the
 * newest of them has been due for more than BEHIND_MS, the most recently due live rows of other
 * accounts take up to a quarter of it: their work queued now goes out while one account's old
 * backlog (a recovery, say) drains, instead of after it.
 */
export async function claimDueDeliveries(db: Executor, opts: ClaimOptions): Promise<ClaimResult> {
  const { nowMs, limit } = opts;
  return inTransaction(db, async (trx) => {
    const statements = deliveryStatements(trx);
    // On PostgreSQL the claim locks the due rows until this transaction commits their lease, and
    // rows another daemon is claiming are passed over instead of claimed twice (SQLite: one writer).
    await orderedClaimPlan(trx);
    const { rows: live } = await trx.executeQuery(statements.selectDueDeliveries(nowMs, limit, false));
    let oldest = live;
    if (live.length < limit) {
      const { rows: replayed } = await trx.executeQuery(statements.selectDueDeliveries(nowMs, limit - live.length, true));
      if (replayed.length > 0) oldest = live.concat(replayed);
    }
    const full = oldest.length === limit;
    let due = oldest;
    let newest: DueDelivery[] = [];
    // Behind on live rows only: when they leave room, every due live row is in the batch already.
    const liveFull = live.length === limit;
    const after = liveFull ? Number(live[live.length - 1].next_attempt_at) : nowMs;
    const lookedNewest = opts.newest !== false && liveFull && limit > 1 && after < nowMs - BEHIND_MS;
    if (lookedNewest) {
      // Behind: rows due after the last of the oldest ones, newest first, replace as many of those.
      // Only other accounts' rows: an account the oldest rows already serve keeps its own order.
      const served = new Set(oldest.map((r) => r.account_id));
      const { rows } = await trx.executeQuery(statements.selectNewestDueDeliveries(after, nowMs, Math.max(1, Math.floor(limit / 4))));
      newest = rows.filter((r) => !served.has(r.account_id)).reverse();
      if (newest.length > 0) due = oldest.slice(0, limit - newest.length);
    }
    const { accounts, endpoints } = await readAccountsAndEndpoints(trx, due, newest);
    const promised = new Map(opts.reserved ?? []);
    // One route per endpoint (per account for rows to its payments URL): shared by its rows.
    const routes = new Map<string, EndpointRoute>();
    const routeOf = (r: DueDelivery, account: ClaimAccount): EndpointRoute => {
      const key = r.endpoint_id ?? `payments:${r.account_id}`;
      let route = routes.get(key);
      if (!route) {
        // A row without endpoint is signed with its account's default endpoint's secret.
        const e = endpoints.get(r.endpoint_id ?? account.default_endpoint_id ?? "");
        const expiresAt = e?.previous_secret_expires_at ?? null;
        route = {
          endpointId: r.endpoint_id,
          url: r.endpoint_id === null ? account.payments_webhook_url : (e?.url ?? null),
          enabled: r.endpoint_id === null || Number(e?.enabled) === 1,
          secretEnc: e?.secret_enc ?? null,
          previousSecretEnc: e?.previous_secret_enc ?? null,
          previousSecretExpiresAt: expiresAt === null ? null : Number(expiresAt),
        };
        routes.set(key, route);
      }
      return route;
    };
    const claimed: ClaimedDelivery[] = [];
    const paused: string[] = [];
    const heldForCredits = new Map<string, HeldForCredits>();
    const waiting: string[] = [];
    // Rows of rate-limited endpoints not yet given a slot, per endpoint, oldest first: placed below.
    const paced = new Map<string, PacedRows>();
    // Rate-limited endpoints whose schedule fell behind: it moves on as a whole (resumeLateSlots).
    const late = new Map<string, Lane>();
    const take = (r: DueDelivery, fromNewest: boolean) => {
      // Read in the same transaction as the row, which the select joined to its account. On
      // PostgreSQL (read committed) an account deleted between the two reads is gone from the
      // second: its row is left alone, as the join leaves the rows of a deleted account.
      const account = accounts.get(r.account_id);
      if (account === undefined) return;
      if (account.disabled_at !== null) {
        paused.push(r.id);
        return;
      }
      const route = routeOf(r, account);
      if (!route.enabled && waitsForEndpoint(r, route)) {
        waiting.push(r.id);
        return;
      }
      const maxRps = opts.throttle && goesToEndpoint(route) ? (endpoints.get(route.endpointId)?.max_rps ?? opts.defaultMaxRps ?? 0) : 0;
      let pacing = false;
      if (maxRps > 0 && goesToEndpoint(route) && chooseTarget(r, route).ok) {
        const lane = { accountId: r.account_id, endpointId: route.endpointId, maxRps };
        if (!hasSlot(r)) pacing = true;
        else if (late.has(lane.endpointId) || Number(r.next_attempt_at) < nowMs - LATE_MS) {
          late.set(lane.endpointId, lane);
          return;
        }
      }
      // A paced endpoint's recent rows wait for the oldest claim: they must not overtake its older ones.
      if (pacing && fromNewest) return;
      const price = opts.priceOf(r);
      if (price > 0) {
        const credits = Number(account.credits);
        if (credits < price) {
          paused.push(r.id);
          if (!heldForCredits.has(r.account_id)) heldForCredits.set(r.account_id, { accountId: r.account_id, eventType: r.event_type, price, balance: credits });
          return;
        }
        const held = promised.get(r.account_id) ?? 0;
        if (credits - Number(account.leased) - held < price) return;
        promised.set(r.account_id, held + price);
      }
      // The row itself becomes the claimed delivery: copying every column of every row showed up in profiles.
      const d = r as ClaimedDelivery;
      d.route = route;
      d.price = price;
      d.newest = fromNewest;
      if (!pacing) {
        claimed.push(d);
        return;
      }
      const endpointId = route.endpointId as string;
      let lane = paced.get(endpointId);
      if (!lane) paced.set(endpointId, (lane = { accountId: r.account_id, endpointId, maxRps, rows: [] }));
      lane.rows.push(d);
    };
    for (const r of due) take(r, false);
    for (const r of newest) take(r, true);
    let deferred: Slot[] = [];
    if (opts.throttle && (paced.size > 0 || late.size > 0)) {
      const placed = await pace(trx, opts.throttle, paced, late, nowMs);
      for (const d of placed.now) claimed.push(d);
      // Not sent now: their credits are not promised either.
      for (const d of placed.later) promised.set(d.account_id, (promised.get(d.account_id) ?? 0) - d.price);
      deferred = placed.slots;
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
    if (deferred.length > 0) await deferToSlots(trx, deferred, nowMs);
    return { claimed, paused, held: [...heldForCredits.values()], more: full && paused.length + waiting.length + deferred.length + late.size > 0, lookedNewest };
  });
}

/**
 * The accounts of the claim's rows and their endpoints (for a row without endpoint, its account's
 * default one), each read once: a batch is mostly rows of a few endpoints, and joining them to
 * every row cost more than reading the rows.
 */
async function readAccountsAndEndpoints(trx: Transaction<DB>, due: readonly DueDelivery[], newest: readonly DueDelivery[]) {
  const accounts = new Map<string, ClaimAccount>();
  const endpoints = new Map<string, ClaimEndpoint>();
  if (due.length === 0 && newest.length === 0) return { accounts, endpoints };
  const statements = deliveryStatements(trx);
  const accountIds = new Set<string>();
  const endpointIds = new Set<string>();
  let payments = false;
  for (const rows of [due, newest])
    for (const r of rows) {
      accountIds.add(r.account_id);
      if (r.endpoint_id === null) payments = true;
      else endpointIds.add(r.endpoint_id);
    }
  const { rows: accountRows } = await trx.executeQuery(statements.selectClaimAccounts([...accountIds]));
  for (const a of accountRows) {
    accounts.set(a.id, a);
    if (payments && a.default_endpoint_id !== null) endpointIds.add(a.default_endpoint_id);
  }
  if (endpointIds.size > 0) {
    const { rows: endpointRows } = await trx.executeQuery(statements.selectClaimEndpoints([...endpointIds]));
    for (const e of endpointRows) endpoints.set(e.id, e);
  }
  return { accounts, endpoints };
}

/** A rate-limited endpoint: its account, and its limit. */
type Lane = { accountId: string; endpointId: string; maxRps: number };

/** A rate-limited endpoint's rows without a slot yet, oldest first. */
type PacedRows = Lane & { rows: ClaimedDelivery[] };

/**
 * Gives the paced rows their slots (throttle.ts): those whose slot is now go `now`, the others
 * `later`, with the `slots` to push them back to. First, the schedule of each `late` endpoint moves
 * on whole (resumeLateSlots), so its new rows queue behind the moved one. Endpoints in id order:
 * every daemon asks the shared budgets in the same order.
 */
async function pace(trx: Transaction<DB>, throttle: DeliveryThrottle, paced: Map<string, PacedRows>, late: Map<string, Lane>, nowMs: number) {
  const now: ClaimedDelivery[] = [];
  const later: ClaimedDelivery[] = [];
  const slots: Slot[] = [];
  for (const endpointId of [...new Set([...late.keys(), ...paced.keys()])].sort()) {
    const behind = late.get(endpointId);
    if (behind !== undefined) {
      const lastDue = await resumeLateSlots(trx, behind, nowMs);
      if (lastDue !== null) throttle.resume(endpointId, behind.maxRps, lastDue);
    }
    const lane = paced.get(endpointId);
    if (!lane) continue;
    const dueAt = await throttle.place(endpointId, lane.maxRps, lane.rows.length, nowMs, () => lastRateSlot(trx, lane, nowMs));
    for (const [i, d] of lane.rows.entries()) {
      if (dueAt[i] <= nowMs) now.push(d);
      else {
        later.push(d);
        slots.push({ id: d.id, dueAt: dueAt[i] });
      }
    }
  }
  return { now, later, slots };
}

/** How far behind the oldest due rows must be before a full claim also takes the most recently due ones. */
export const BEHIND_MS = 50;

/** How long a row waiting for its disabled endpoint stays out of the claim before it is looked at again. */
export const WAITING_RECHECK_MS = 3_600_000;

/**
 * Keeps rows whose endpoint is disabled `pending`, without an attempt, out of the claims for
 * WAITING_RECHECK_MS: they do not crowd the due index meanwhile, and switching the endpoint on
 * makes them due at once (endpoint-deliveries.ts, sendWaitingDeliveries). Rare, so built, not hand-written.
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
  const statements = deliveryStatements(db);
  for (const d of rows) {
    if (d.lease_until === null) continue;
    await db.executeQuery(statements.releaseLease(d.id, d.lease_until));
  }
}
