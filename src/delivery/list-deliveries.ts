import type { Db } from "../db/database.ts";
import type { Explained, Result } from "../lib/error-codes.ts";
import { attemptsOf, deliveryView, getDelivery, listDeliveries, type ListPosition, loggedAttemptCounts } from "./admin.ts";

// The operator's walk through the outbox (`deliveries list`), a page at a time, newest first.

export type DeliveryPageQuery = {
  accountId?: string;
  status?: string;
  /** Deliveries a page shows at most. */
  limit: number;
  /** The page starts after this delivery: the cursor the page before it named. */
  cursor?: string;
  /** Each delivery's attempt log in its view (the JSON listing); else its count alone (the table). */
  attemptLog: boolean;
};

export type DeliveryPage = {
  deliveries: ReturnType<typeof deliveryView>[];
  /** Where the next page starts (its cursor), or null when this page is the last. */
  nextCursor: string | null;
  /** The name of each account the page's deliveries belong to, by id. */
  accountNames: Map<string, string>;
};

/** One page of the outbox, newest first; a cursor that names no delivery is DELIVERY_NOT_FOUND. */
export async function listDeliveryPage(db: Db, q: DeliveryPageQuery): Promise<Result<DeliveryPage, Explained<"DELIVERY_NOT_FOUND">>> {
  let before: ListPosition | undefined;
  if (q.cursor !== undefined) {
    const at = await getDelivery(db, q.cursor);
    if (!at) return { ok: false, code: "DELIVERY_NOT_FOUND", error: `no such delivery: ${q.cursor}` };
    before = { created_at: Number(at.created_at), id: at.id };
  }
  // One row more than shown says whether another page follows.
  const fetched = await listDeliveries(db, { accountId: q.accountId, status: q.status, limit: q.limit + 1, before });
  const rows = fetched.slice(0, q.limit);
  const nextCursor = fetched.length > q.limit ? rows[rows.length - 1].id : null;
  const ids = rows.map((d) => d.id);
  let deliveries: DeliveryPage["deliveries"];
  if (q.attemptLog) {
    const attempts = await attemptsOf(db, ids);
    deliveries = rows.map((d) => {
      const log = attempts.filter((a) => a.delivery_id === d.id);
      return deliveryView(d, log.length, log);
    });
  } else {
    const counts = await loggedAttemptCounts(db, ids);
    deliveries = rows.map((d) => deliveryView(d, counts.get(d.id) ?? 0));
  }
  return { ok: true, deliveries, nextCursor, accountNames: await accountNamesOf(db, rows.map((d) => d.account_id)) };
}

/** The names of some accounts, by id. */
async function accountNamesOf(db: Db, accountIds: string[]): Promise<Map<string, string>> {
  const unique = [...new Set(accountIds)];
  if (unique.length === 0) return new Map();
  const rows = await db.selectFrom("accounts").select(["id", "name"]).where("id", "in", unique).execute();
  return new Map(rows.map((r) => [r.id, r.name]));
}
