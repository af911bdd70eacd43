import type { Kysely } from "kysely";
import type { Executor } from "../db/database.ts";
import { inTransaction } from "../db/executor.ts";
import { insertionOrder, lockAccount } from "../db/primitives.ts";
import type { DB, Watch } from "../db/schema.ts";
import { newId } from "../lib/ids.ts";
import { rfc3339 } from "../lib/time.ts";
import type { Failure } from "../lib/error-codes.ts";
import { watchStatements } from "./sql/dialects.ts";

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
    const statements = watchStatements(trx);
    const [existing] = (await trx.executeQuery(statements.selectWatchAt(input.accountId, input.network, input.address))).rows;
    // Re-adding is idempotent even at a full cap: it takes no new slot.
    if (existing) return { ok: true, created: false, watch: existing };
    const [{ slots, used }] = (await trx.executeQuery(statements.selectSlots(input.accountId))).rows;
    if (Number(used) >= slots) return { ok: false, code: "SLOT_LIMIT" };
    const watch: Watch = {
      id: newId("aw"),
      account_id: input.accountId,
      network: input.network,
      address: input.address,
      created_at: input.now,
    };
    await trx.executeQuery(statements.insertWatch(watch));
    await countWatches(trx, input.accountId, 1);
    return { ok: true, created: true, watch };
  });
}

/** One address of a batch, already normalized, and the key it is looked up by. */
type BatchItem = { network: string; address: string };
const keyOf = (network: string, address: string) => `${network}\n${address}`;

// Rows per statement: five columns a row keeps a chunk far below SQLite's bound-parameter cap.
const CHUNK = 500;

/**
 * Watches each address of a batch, in order, as addWatch would one by one: an address already
 * watched (before or earlier in the batch) answers its record and takes no slot; a new one takes
 * the next free slot, or is refused SLOT_LIMIT once none is left, while later items already
 * watched still answer. One transaction under the account's lock: the plan and the slots in use
 * are read once, the existing watches looked up per network in chunks, the new ones inserted in
 * chunks in the batch's order, so the cost follows the batch, not the watches the account has.
 */
export async function addWatches(
  db: Kysely<DB>,
  input: { accountId: string; items: readonly BatchItem[]; now: number },
): Promise<AddWatchOutcome[]> {
  return db.transaction().execute(async (trx) => {
    await lockAccount(trx, input.accountId);
    const [slot] = (await trx.executeQuery(watchStatements(trx).selectSlots(input.accountId))).rows;
    const slots = slot.slots;
    let used = Number(slot.used);
    const known = new Map<string, Watch>();
    const byNetwork = new Map<string, Set<string>>();
    for (const item of input.items) {
      const set = byNetwork.get(item.network) ?? new Set<string>();
      set.add(item.address);
      byNetwork.set(item.network, set);
    }
    for (const [network, addresses] of byNetwork) {
      const all = [...addresses];
      for (let i = 0; i < all.length; i += CHUNK) {
        const rows = await trx
          .selectFrom("watches")
          .selectAll()
          .where("account_id", "=", input.accountId)
          .where("network", "=", network)
          .where("address", "in", all.slice(i, i + CHUNK))
          .execute();
        for (const w of rows) known.set(keyOf(w.network, w.address), w);
      }
    }
    const fresh: Watch[] = [];
    const outcomes = input.items.map((item): AddWatchOutcome => {
      const key = keyOf(item.network, item.address);
      const existing = known.get(key);
      if (existing) return { ok: true, created: false, watch: existing };
      if (used >= slots) return { ok: false, code: "SLOT_LIMIT" };
      const watch: Watch = { id: newId("aw"), account_id: input.accountId, network: item.network, address: item.address, created_at: input.now };
      used += 1;
      known.set(key, watch);
      fresh.push(watch);
      return { ok: true, created: true, watch };
    });
    for (let i = 0; i < fresh.length; i += CHUNK) await trx.insertInto("watches").values(fresh.slice(i, i + CHUNK)).execute();
    await countWatches(trx, input.accountId, fresh.length);
    return outcomes;
  });
}

/**
 * Stops watching each id of a batch, in order, as deleteWatch would one by one: true for an id of
 * the account's deleted here, false for one that is not the account's, or was deleted earlier in
 * the batch. One transaction.
 */
export async function deleteWatches(db: Kysely<DB>, accountId: string, watchIds: readonly string[]): Promise<boolean[]> {
  return db.transaction().execute(async (trx) => {
    const unique = [...new Set(watchIds)];
    const deleted = new Set<string>();
    for (let i = 0; i < unique.length; i += CHUNK) {
      const rows = await trx
        .deleteFrom("watches")
        .where("account_id", "=", accountId)
        .where("id", "in", unique.slice(i, i + CHUNK))
        .returning("id")
        .execute();
      for (const r of rows) deleted.add(r.id);
    }
    await countWatches(trx, accountId, -deleted.size);
    return watchIds.map((id) => deleted.delete(id));
  });
}

/** Address slots in use: watches only (payment addresses take no slot), as `watch_counts` keeps them. */
export async function slotsUsed(db: Executor, accountId: string): Promise<number> {
  const row = await db.selectFrom("watch_counts").select("watches").where("account_id", "=", accountId).executeTakeFirst();
  return Number(row?.watches ?? 0);
}

/**
 * Adds `by` (negative: takes away) to the account's count of watches, in the transaction that
 * inserted or deleted them: every writer of `watches` keeps it, so a slot check reads one row
 * instead of counting every watch of the account.
 */
async function countWatches(trx: Executor, accountId: string, by: number): Promise<void> {
  if (by !== 0) await trx.executeQuery(watchStatements(trx).addToWatchCount(accountId, by));
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
  return inTransaction(db, async (trx) => {
    const result = await trx.deleteFrom("watches").where("id", "=", watchId).where("account_id", "=", accountId).executeTakeFirst();
    if (result.numDeletedRows === 0n) return false;
    await countWatches(trx, accountId, -1);
    return true;
  });
}

/** Addresses asked about for each watch the network holds, at least, for all its watches to be read at once. */
const ADDRESSES_PER_WATCH = 10;

/** Every account's watches of any of the given normalized addresses on a network. */
export async function findWatchesByAddresses(db: Executor, network: string, addresses: string[]): Promise<Watch[]> {
  if (addresses.length === 0) return [];
  const asked = new Set(addresses);
  // A followed batch names thousands of addresses, and a network often holds a handful of watches:
  // when it holds a tenth as many as the addresses asked about, or fewer, one read of the index's
  // range for the network finds them all, instead of a probe of the index per address. Past that
  // bound the read stops, having read a tenth of what the probes will.
  const few = Math.floor(asked.size / ADDRESSES_PER_WATCH);
  if (few > 0) {
    const all = await db.selectFrom("watches").selectAll().where("network", "=", network).limit(few + 1).execute();
    if (all.length <= few) return all.filter((w) => asked.has(w.address));
  }
  const unique = [...asked];
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
