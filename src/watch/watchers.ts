import type { Executor } from "../db/database.ts";
import type { WatchRef } from "./matcher.ts";
import { findWatchesByAddresses } from "./watches.ts";
import { MAX_ADDRESS_LENGTH } from "../chain/address/normalize.ts";

/**
 * The accounts watching at least one address on `network`, in id order. Walks the accounts and
 * probes the (account_id, network, address) unique index for each, so the cost follows the number
 * of accounts, never the number of watches.
 */
export async function watchersOf(db: Executor, network: string): Promise<string[]> {
  const rows = await db
    .selectFrom("accounts")
    .select("id")
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom("watches")
          .select(eb.lit(1).as("one"))
          .whereRef("watches.account_id", "=", "accounts.id")
          .where("watches.network", "=", network),
      ),
    )
    .orderBy("id")
    .execute();
  return rows.map((r) => r.id);
}

/** Watches of the given (matching-form) addresses on a network, grouped by address; one indexed query per 500. */
export async function watchesByAddress(db: Executor, network: string, addresses: Iterable<string>): Promise<Map<string, WatchRef[]>> {
  const candidates = [...addresses].filter((a) => a.length > 0 && a.length <= MAX_ADDRESS_LENGTH);
  const byAddress = new Map<string, WatchRef[]>();
  for (const w of await findWatchesByAddresses(db, network, candidates)) {
    const ref = { id: w.id, accountId: w.account_id, address: w.address };
    const list = byAddress.get(w.address);
    if (list) list.push(ref);
    else byAddress.set(w.address, [ref]);
  }
  return byAddress;
}
