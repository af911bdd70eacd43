import { sql } from "kysely";
import type { Db, Executor } from "../db/database.ts";
import { lockOrder } from "../db/lock-order.ts";
import { type InvalidInput, invalidInput, isFailure, type Result } from "../lib/error-codes.ts";
import { newTimeOrderedId } from "../lib/ids.ts";
import { integerParam, type RawQuery, single } from "../lib/query-params.ts";
import { rfc3339 } from "../lib/time.ts";

// Notices (`notices`, written here only): what an account holder should know without watching for
// it. Each folder words its own and writes it through here, in the transaction of its cause: a
// webhook endpoint switched off after a run of failures (webhooks/), a delivery that used up its
// attempts and deliveries held because the credits cannot pay (delivery/), a payment wallet
// handing out more unused addresses than its gap limit (payments/wallets/gap.ts). They are listed
// (GET /v1/account/notices, the cabinet's overview), never sent as a webhook: the endpoint they are
// about may be the one failing, or the one chainwatch is holding back. A notice whose cause ended
// (the endpoint switched on again, the delivery re-queued, credits added) is resolved: it stays
// listed with `resolved_at`, and leaves the cabinet's overview.

export const NOTICE_TYPES = ["endpoint_disabled", "delivery_failed", "credits_exhausted", "wallet_gap", "quorum_waiting"] as const;
export type NoticeType = (typeof NOTICE_TYPES)[number];

/** A notice to write; `endpointId` names the endpoint an `endpoint_disabled` notice is about (kept, not listed). */
export type NewNotice = { accountId: string; type: NoticeType; message: string; deliveryId: string | null; endpointId?: string | null; createdAt: number };

/** A notice as the API lists it; `delivery_id` only on a delivery's notice; `resolved_at` null while its cause stands. */
export type NoticeView = { id: string; type: NoticeType; created_at: string; message: string; delivery_id?: string; resolved_at: string | null };

/** Rows per INSERT: 7 parameters each. */
const ROWS_PER_INSERT = 256;

function noticeRow(n: NewNotice) {
  return {
    id: newTimeOrderedId("ntc"),
    account_id: n.accountId,
    type: n.type,
    message: n.message,
    delivery_id: n.deliveryId,
    endpoint_id: n.endpointId ?? null,
    created_at: n.createdAt,
  };
}

/** Writes notices in the caller's transaction, with time-ordered `ntc_…` ids in the order given. */
export async function addNotices(db: Executor, notices: readonly NewNotice[]): Promise<void> {
  for (let at = 0; at < notices.length; at += ROWS_PER_INSERT) {
    await db.insertInto("notices").values(notices.slice(at, at + ROWS_PER_INSERT).map(noticeRow)).execute();
  }
}

/**
 * Writes each notice unless one of its type stands open for its account already, in the caller's
 * transaction: for the types a partial unique index keeps to one open notice an account
 * (`credits_exhausted`, notices_credits_open), a second insert, from this daemon or another, does
 * nothing. Written in lock order of their accounts (db/lock-order.ts): two daemons may raise
 * notices of the same accounts at once. Returns the notices this call wrote, in that order.
 */
export async function raiseOnce(db: Executor, notices: readonly NewNotice[]): Promise<NewNotice[]> {
  const raised: NewNotice[] = [];
  const ordered = notices.length > 1 ? [...notices].sort((a, z) => lockOrder(a.accountId, z.accountId)) : notices;
  for (const n of ordered) {
    const row = await db
      .insertInto("notices")
      .values(noticeRow(n))
      .onConflict((oc) => oc.doNothing())
      .returning("account_id")
      .executeTakeFirst();
    if (row) raised.push(n);
  }
  return raised;
}

/** Ids per IN (…) list, far below SQLite's bound-parameter cap. */
const IDS_PER_LIST = 500;

/**
 * Resolves the open notices of `type` of these accounts (of these deliveries, or of this endpoint,
 * when given), in the caller's transaction: their cause has ended. One already resolved keeps its time.
 */
export async function resolveNotices(
  db: Executor,
  which: { type: NoticeType; accountIds: readonly string[]; deliveryIds?: readonly string[]; endpointId?: string },
  nowMs: number,
): Promise<void> {
  const { type, accountIds, deliveryIds, endpointId } = which;
  for (let at = 0; at < accountIds.length; at += IDS_PER_LIST) {
    const accounts = accountIds.slice(at, at + IDS_PER_LIST);
    for (let d = 0; d < (deliveryIds?.length ?? 1); d += IDS_PER_LIST) {
      // The type as a literal: it implies the condition of the open credit notices' partial index,
      // which a bound parameter does not (db/dialect/sqlite/plan-stable.ts).
      let q = db.updateTable("notices").set({ resolved_at: nowMs }).where("account_id", "in", accounts).where("type", "=", sql.lit(type)).where("resolved_at", "is", null);
      if (deliveryIds) q = q.where("delivery_id", "in", deliveryIds.slice(d, d + IDS_PER_LIST));
      if (endpointId !== undefined) q = q.where("endpoint_id", "=", endpointId);
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
