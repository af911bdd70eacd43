import type { Db, Executor } from "../db/database.ts";
import { eventStatements } from "./sql/dialects.ts";


// Accounts per IN (…) list, far below SQLite's bound-parameter cap.
const CHUNK = 500;

/** events.account_id of a block event: stored once, seen by every subscribed account. */
export const SHARED = "*";

/** A stretch of event seq in which an account received a network's block events. */
export type Subscription = { network: string; fromSeq: number; untilSeq: number | null };

/**
 * Makes the open block subscriptions of `network` match the accounts watching it now: accounts
 * that started watching get a subscription from `seq`, accounts that stopped have theirs closed
 * at `seq`. `seq` is where this batch's events start, so a block event belongs to exactly the
 * accounts that watched when its block was ingested. Runs inside the ingest transaction.
 */
export async function syncSubscriptions(trx: Executor, network: string, watchers: readonly string[], seq: number): Promise<void> {
  const open = await trx.selectFrom("block_subscriptions").select("account_id").where("network", "=", network).where("until_seq", "is", null).execute();
  const current = new Set(watchers);
  const wasOpen = new Set(open.map((r) => r.account_id));
  const started = watchers.filter((a) => !wasOpen.has(a));
  const stopped = [...wasOpen].filter((a) => !current.has(a));
  for (let i = 0; i < started.length; i += CHUNK) {
    await trx
      .insertInto("block_subscriptions")
      .values(started.slice(i, i + CHUNK).map((account_id) => ({ account_id, network, from_seq: seq, until_seq: null })))
      // Only after retention emptied the whole table can a seq come round again; reopen that row.
      .onConflict((oc) => oc.columns(["account_id", "network", "from_seq"]).doUpdateSet({ until_seq: null }))
      .execute();
  }
  for (let i = 0; i < stopped.length; i += CHUNK) {
    await trx
      .updateTable("block_subscriptions")
      .set({ until_seq: seq })
      .where("network", "=", network)
      .where("until_seq", "is", null)
      .where("account_id", "in", stopped.slice(i, i + CHUNK))
      .execute();
  }
}

/** An account's subscriptions (of one network, when given) that still cover events after `afterSeq`. */
export async function subscriptionsOf(db: Executor, accountId: string, opts: { network?: string; afterSeq: number }): Promise<Subscription[]> {
  // Hand-written (sql/): every poll of the events reads it.
  const { rows } = await db.executeQuery(eventStatements(db).selectSubscriptions(accountId, opts.network ?? null, opts.afterSeq));
  return rows.map((r) => ({ network: r.network, fromSeq: r.from_seq, untilSeq: r.until_seq }));
}

/** Whether the account received the shared block event at `seq` on `network`. */
export async function receivedBlockEvent(db: Executor, accountId: string, network: string, seq: number): Promise<boolean> {
  const row = await db
    .selectFrom("block_subscriptions")
    .select("from_seq")
    .where("account_id", "=", accountId)
    .where("network", "=", network)
    .where("from_seq", "<=", seq)
    .where((eb) => eb.or([eb("until_seq", "is", null), eb("until_seq", ">", seq)]))
    .executeTakeFirst();
  return row !== undefined;
}

/** Deletes closed subscriptions that no stored block event falls in any more (after retention). */
export async function pruneSubscriptions(db: Db): Promise<number> {
  const result = await db
    .deleteFrom("block_subscriptions")
    .where("until_seq", "is not", null)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom("events")
            .select("seq")
            .where("events.account_id", "=", SHARED)
            .whereRef("events.network", "=", "block_subscriptions.network")
            .whereRef("events.seq", ">=", "block_subscriptions.from_seq")
            .whereRef("events.seq", "<", "block_subscriptions.until_seq"),
        ),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
