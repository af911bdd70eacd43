import { loadAccount } from "./account-view.ts";
import type { Db } from "../db/database.ts";
import { countEvents } from "../watch/events.ts";
import { slotsUsed } from "../watch/watches.ts";
import { defaultEndpoint } from "../webhooks/endpoints.ts";

/** GET /v1/address-watch/account: slots, the webhook's state (its default endpoint's) and the number of stored events. */
export type WatchSummary = {
  address_slots: { used: number; limit: number };
  webhook: { url: string | null; enabled: boolean };
  events_total: number;
};

/** An account's address-watch at a glance. */
export async function watchSummary(deps: { db: Db }, accountId: string): Promise<WatchSummary> {
  const a = await loadAccount(deps.db, accountId);
  // Block events are stored once per block and shared; countEvents adds the ones this account received.
  const [used, eventsTotal, webhook] = await Promise.all([slotsUsed(deps.db, a.id), countEvents(deps.db, a.id), defaultEndpoint(deps.db, a.id)]);
  return {
    address_slots: { used, limit: a.address_slots },
    webhook: { url: webhook.url, enabled: webhook.enabled },
    events_total: eventsTotal,
  };
}
