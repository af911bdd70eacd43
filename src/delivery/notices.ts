import type { Db, Executor } from "../db/database.ts";
import type { Delivery } from "../db/schema.ts";
import { type InvalidInput, invalidInput, isFailure, type Result } from "../lib/error-codes.ts";
import { newTimeOrderedId } from "../lib/ids.ts";
import { integerParam, type RawQuery, single } from "../lib/query-params.ts";
import { rfc3339 } from "../lib/time.ts";
import { urlLabel } from "../net/url-label.ts";

// Notices (`notices`, written here only): what an account holder should know without watching for
// it — its webhook switched off after a run of failures, a delivery that used up its attempts,
// deliveries held because its credits cannot pay, a payment wallet handing out more unused
// addresses than its gap limit (payments/wallets/gap.ts writes that one through addNotices). They
// are listed (GET /v1/account/notices, the cabinet's overview), never sent as a webhook: the
// endpoint they are about may be the one failing, or the one chainwatch is holding back. A notice
// whose cause ended (the webhook switched on again, the delivery re-queued, credits added) is
// resolved: it stays listed with `resolved_at`, and leaves the cabinet's overview.

export const NOTICE_TYPES = ["endpoint_disabled", "delivery_failed", "credits_exhausted", "wallet_gap"] as const;
export type NoticeType = (typeof NOTICE_TYPES)[number];

/** A notice to write. */
export type NewNotice = { accountId: string; type: NoticeType; message: string; deliveryId: string | null; createdAt: number };

/** A notice as the API lists it; `delivery_id` only on a delivery's notice; `resolved_at` null while its cause stands. */
export type NoticeView = { id: string; type: NoticeType; created_at: string; message: string; delivery_id?: string; resolved_at: string | null };

/** Rows per INSERT: 6 parameters each. */
const ROWS_PER_INSERT = 256;

/** Writes notices in the caller's transaction, with time-ordered `ntc_…` ids in the order given. */
export async function addNotices(db: Executor, notices: readonly NewNotice[]): Promise<void> {
  for (let at = 0; at < notices.length; at += ROWS_PER_INSERT) {
    const rows = notices.slice(at, at + ROWS_PER_INSERT).map((n) => ({
      id: newTimeOrderedId("ntc"),
      account_id: n.accountId,
      type: n.type,
      message: n.message,
      delivery_id: n.deliveryId,
      created_at: n.createdAt,
    }));
    await db.insertInto("notices").values(rows).execute();
  }
}

/** The notice of a delivery that used up its attempts and is now `failed`. */
export function deliveryFailedNotice(
  d: Pick<Delivery, "id" | "account_id" | "event_type" | "network">,
  attempts: number,
  error: string | null,
  nowMs: number,
): NewNotice {
  const last = error === null ? "" : `; last error: ${error}`;
  return {
    accountId: d.account_id,
    type: "delivery_failed",
    message: `Delivery ${d.id} (${d.event_type} on ${d.network}) failed after ${attempts} attempt${attempts === 1 ? "" : "s"}${last}. It can be sent again.`,
    deliveryId: d.id,
    createdAt: nowMs,
  };
}

/** The notice of a webhook switched off after failing since `failingSince`. */
export function endpointDisabledNotice(e: { accountId: string; url: string; failingSince: number; lastError: string }, nowMs: number): NewNotice {
  return {
    accountId: e.accountId,
    type: "endpoint_disabled",
    message:
      `Webhook ${urlLabel(e.url)} disabled: every attempt failed since ${rfc3339(e.failingSince)} (last error: ${e.lastError}). ` +
      "Events are still stored and listed; enable the webhook to resume deliveries.",
    deliveryId: null,
    createdAt: nowMs,
  };
}

/** The notice of an account whose deliveries wait because its balance cannot pay the first of them. */
export function creditsExhaustedNotice(h: HeldForCredits, nowMs: number): NewNotice {
  return {
    accountId: h.accountId,
    type: "credits_exhausted",
    message:
      `Webhook deliveries are held: a ${h.eventType} delivery costs ${h.price} credit${h.price === 1 ? "" : "s"} and the balance is ${h.balance}. ` +
      "Nothing is lost: held deliveries wait and go out once credits are added.",
    deliveryId: null,
    createdAt: nowMs,
  };
}

/** An account whose deliveries a claim just held for lack of credits, with what the first of them costs. */
export type HeldForCredits = { accountId: string; eventType: string; price: number; balance: number };

/**
 * Raises `credits_exhausted` for each account held, in the caller's transaction, unless the
 * account has one open already (the partial unique index notices_credits_open: a second insert,
 * from this daemon or another, does nothing). Returns the accounts whose notice this call wrote,
 * so each hold is logged once, by the daemon that raised it.
 */
export async function raiseCreditsExhausted(db: Executor, held: readonly HeldForCredits[], nowMs: number): Promise<HeldForCredits[]> {
  const raised: HeldForCredits[] = [];
  for (const h of held) {
    const n = creditsExhaustedNotice(h, nowMs);
    const row = await db
      .insertInto("notices")
      .values({ id: newTimeOrderedId("ntc"), account_id: n.accountId, type: n.type, message: n.message, delivery_id: null, created_at: n.createdAt })
      .onConflict((oc) => oc.doNothing())
      .returning("account_id")
      .executeTakeFirst();
    if (row) raised.push(h);
  }
  return raised;
}

/** Ids per IN (…) list, far below SQLite's bound-parameter cap. */
const IDS_PER_LIST = 500;

/**
 * Resolves the open notices of `type` of these accounts (of these deliveries, when given), in the
 * caller's transaction: their cause has ended. One already resolved keeps its time.
 */
export async function resolveNotices(
  db: Executor,
  which: { type: NoticeType; accountIds: readonly string[]; deliveryIds?: readonly string[] },
  nowMs: number,
): Promise<void> {
  const { type, accountIds, deliveryIds } = which;
  for (let at = 0; at < accountIds.length; at += IDS_PER_LIST) {
    const accounts = accountIds.slice(at, at + IDS_PER_LIST);
    for (let d = 0; d < (deliveryIds?.length ?? 1); d += IDS_PER_LIST) {
      let q = db.updateTable("notices").set({ resolved_at: nowMs }).where("account_id", "in", accounts).where("type", "=", type).where("resolved_at", "is", null);
      if (deliveryIds) q = q.where("delivery_id", "in", deliveryIds.slice(d, d + IDS_PER_LIST));
      await q.execute();
    }
  }
}

/** Notices per page unless the client says, and the most it may ask for. */
export const DEFAULT_NOTICE_LIMIT = 20;
export const MAX_NOTICE_LIMIT = 100;

export type NoticePage = Result<{ notices: NoticeView[]; next_after: string | null }, InvalidInput>;

/**
 * One page of the account's notices, newest first (GET /v1/account/notices): `after` is the last
 * id of the previous page; an unknown cursor is a failure, not an empty page.
 */
export async function listNotices(deps: { db: Db }, accountId: string, query: RawQuery): Promise<NoticePage> {
  const limit = integerParam(query, "limit", { min: 1, max: MAX_NOTICE_LIMIT, fallback: DEFAULT_NOTICE_LIMIT });
  if (isFailure(limit)) return limit;
  const after = single(query, "after");
  if (isFailure(after)) return after;
  if (after === "") return invalidInput("after must not be empty");
  if (after !== undefined) {
    const known = await deps.db.selectFrom("notices").select("id").where("id", "=", after).where("account_id", "=", accountId).executeTakeFirst();
    if (!known) return invalidInput(`Unknown cursor: ${after}`);
  }
  let q = deps.db.selectFrom("notices").selectAll().where("account_id", "=", accountId);
  if (after !== undefined) q = q.where("id", "<", after);
  const rows = await q.orderBy("id", "desc").limit(limit + 1).execute();
  const page = rows.slice(0, limit).map(noticeView);
  return { ok: true, notices: page, next_after: rows.length > limit ? page[page.length - 1].id : null };
}

/** The account's latest notices whose cause stands, newest first (the cabinet's overview). */
export async function openNotices(db: Executor, accountId: string, count: number): Promise<NoticeView[]> {
  const rows = await db
    .selectFrom("notices")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("resolved_at", "is", null)
    .orderBy("id", "desc")
    .limit(count)
    .execute();
  return rows.map(noticeView);
}

function noticeView(r: { id: string; type: string; message: string; delivery_id: string | null; created_at: number | string; resolved_at: number | string | null }): NoticeView {
  return {
    id: r.id,
    type: r.type as NoticeType,
    created_at: rfc3339(Number(r.created_at)),
    message: r.message,
    ...(r.delivery_id === null ? {} : { delivery_id: r.delivery_id }),
    resolved_at: r.resolved_at === null ? null : rfc3339(Number(r.resolved_at)),
  };
}
