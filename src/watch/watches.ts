import type { Kysely } from "kysely";
import type { Executor } from "../db/database.ts";
import { insertionOrder, lockAccount } from "../db/primitives.ts";
import type { DB, Watch } from "../db/schema.ts";
import { newId } from "../lib/ids.ts";
import { rfc3339 } from "../lib/time.ts";
import type { Failure } from "../lib/error-codes.ts";

/** The public shape of a watched address (docs/api.md). */
export type WatchView = { watch_id: string; network_slug: string; address: string; created_at: string };

/** Turns a stored watch into its API shape. */
export function watchView(w: Watch): WatchView {
  return { watch_id: w.id, network_slug: w.network, address: w.address, created_at: rfc3339(w.created_at) };
}

/** `created: false` means the account already watched this address: same record, no extra slot. */
export type AddWatchOutcome = { ok: true; created: boolean; watch: Watch } | Failure<"SLOT_LIMIT">;

/**
 * Watches `address` (already normalized) on `network` for an account, within its plan's slot cap.
 *
 * Takes the database, not a transaction, because it owns one: the look-up, the count and the
 * insert must share a single write transaction under the account's lock (BEGIN IMMEDIATE on
 * SQLite, a row lock on PostgreSQL), so two concurrent adds (in this or another process) cannot
 * both see the last free slot.
 */
export async function addWatch(
  db: Kysely<DB>,
  input: { accountId: string; network: string; address: string; now: number },
): Promise<AddWatchOutcome> {
  return db.transaction().execute(async (trx) => {
    await lockAccount(trx, input.accountId);
    const existing = await findWatchByAddress(trx, input.accountId, input.network, input.address);
    // Re-adding is idempotent even at a full cap: it takes no new slot.
    if (existing) return { ok: true, created: false, watch: existing };
    const plan = await trx
      .selectFrom("accounts")
      .innerJoin("plans", "plans.name", "accounts.plan")
      .select("plans.address_slots")
      .where("accounts.id", "=", input.accountId)
      .executeTakeFirstOrThrow();
    if ((await slotsUsed(trx, input.accountId)) >= plan.address_slots) return { ok: false, code: "SLOT_LIMIT" };
    const watch: Watch = {
      id: newId("aw"),
      account_id: input.accountId,
      network: input.network,
      address: input.address,
      created_at: input.now,
    };
    await trx.insertInto("watches").values(watch).execute();
    return { ok: true, created: true, watch };
  });
}

/** Address slots in use: watches only (payment addresses take no slot). */
export async function slotsUsed(db: Executor, accountId: string): Promise<number> {
  const row = await db
    .selectFrom("watches")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("account_id", "=", accountId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** An account's watches in the order they were created. */
export function listWatches(db: Executor, accountId: string): Promise<Watch[]> {
  // Insertion order breaks ties between watches created in the same millisecond.
  return db
    .selectFrom("watches")
    .selectAll()
    .where("account_id", "=", accountId)
    .orderBy("created_at")
    .orderBy(insertionOrder(db))
    .execute();
}

/** Stops watching; false when the watch does not exist or belongs to another account. */
export async function deleteWatch(db: Executor, accountId: string, watchId: string): Promise<boolean> {
  const result = await db
    .deleteFrom("watches")
    .where("id", "=", watchId)
    .where("account_id", "=", accountId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** An account's watch of a normalized address on a network, if any. */
export function findWatchByAddress(
  db: Executor,
  accountId: string,
  network: string,
  address: string,
): Promise<Watch | undefined> {
  return db
    .selectFrom("watches")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("network", "=", network)
    .where("address", "=", address)
    .executeTakeFirst();
}

/** Every account's watches of any of the given normalized addresses on a network. */
export async function findWatchesByAddresses(db: Executor, network: string, addresses: string[]): Promise<Watch[]> {
  if (addresses.length === 0) return [];
  const unique = [...new Set(addresses)];
  const rows: Watch[] = [];
  // SQLite caps bound parameters per statement (32766 in modern builds); stay far below it.
  for (let i = 0; i < unique.length; i += 500) {
    const chunk = unique.slice(i, i + 500);
    rows.push(
      ...(await db
        .selectFrom("watches")
        .selectAll()
        .where("network", "=", network)
        .where("address", "in", chunk)
        .execute()),
    );
  }
  return rows;
}
