import type { Executor } from "../../src/db/database.ts";
import { defaultEndpoint, saveEndpointSettings } from "../../src/webhooks/endpoints.ts";
import type { EventFilters } from "../../src/webhooks/filters.ts";

/**
 * Points an account's default webhook endpoint at `url`, switched on, straight in the database (a
 * bench's setup: no DNS check); `maxRps` and `events` change those too. Returns the endpoint's id.
 */
export async function pointWebhook(db: Executor, accountId: string, url: string, set: { maxRps?: number; events?: Partial<EventFilters> } = {}): Promise<string> {
  const e = await defaultEndpoint(db, accountId);
  await saveEndpointSettings(db, e.id, { ...e, url, enabled: true, events: { ...e.events, ...set.events }, maxRps: set.maxRps ?? e.maxRps }, Date.now());
  return e.id;
}
