import type { Executor } from "../../src/db/database.ts";
import { defaultEndpoint, saveEndpointSettings } from "../../src/webhooks/endpoints.ts";
import type { EventFilters } from "../../src/webhooks/filters.ts";

/**
 * Sets an account's default webhook endpoint straight in the database, as a test's setup (no DNS
 * check, no side effects on its deliveries): the keys given replace, the others stay.
 */
export async function setDefaultEndpoint(
  db: Executor,
  accountId: string,
  set: { url?: string | null; enabled?: boolean; maxRps?: number | null; events?: Partial<EventFilters> },
  nowMs = Date.now(),
): Promise<string> {
  const e = await defaultEndpoint(db, accountId);
  await saveEndpointSettings(
    db,
    e.id,
    {
      url: set.url === undefined ? e.url : set.url,
      enabled: set.enabled ?? e.enabled,
      description: e.description,
      events: { ...e.events, ...set.events },
      maxRps: set.maxRps === undefined ? e.maxRps : set.maxRps,
    },
    nowMs,
  );
  return e.id;
}

/** The id of the account's default endpoint. */
export async function defaultEndpointId(db: Executor, accountId: string): Promise<string> {
  return (await defaultEndpoint(db, accountId)).id;
}
