import type { Executor } from "../db/database.ts";
import { passesFilters } from "./filters.ts";
import type { WatchRef } from "./matcher.ts";
import { findWatchesByAddresses } from "./watches.ts";
import { parseStoredFilters, type WebhookSettings } from "./webhook-settings.ts";
import { MAX_ADDRESS_LENGTH } from "../chain/address/normalize.ts";



/** An account watching a network, with what decides whether its events are delivered. */
export type Watcher = { accountId: string; webhook: WebhookSettings };

/**
 * Accounts watching at least one address on `network`, with their webhook settings. Walks the
 * accounts and probes the (account_id, network, address) unique index for each, so the cost
 * follows the number of accounts, never the number of watches.
 */
export async function watchersOf(db: Executor, network: string): Promise<Watcher[]> {
  const rows = await db
    .selectFrom("accounts")
    .select(["id", "webhook_url", "webhook_enabled", "webhook_filters"])
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
  return rows.map((r) => ({
    accountId: r.id,
    webhook: { url: r.webhook_url, enabled: r.webhook_enabled === 1, events: parseStoredFilters(r.webhook_filters) },
  }));
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

/** Whether an event goes out as a webhook: enabled, with a URL, and passing the filters. */
export function isDelivered(w: Watcher, type: string, direction: "in" | "out" | null, network: string): boolean {
  return w.webhook.enabled && w.webhook.url !== null && passesFilters(w.webhook.events, type, direction, network);
}
