import { findNetwork, unknownNetwork } from "../config/networks.ts";
import type { NetworkConfig } from "../config/schema.ts";
import type { Db } from "../db/database.ts";
import { type InvalidInput, invalidInput, isFailure, type Result } from "../lib/error-codes.ts";
import { integerParam, type RawQuery, single } from "../lib/query-params.ts";
import { type EventPage, type EventQuery, listEvents } from "./events.ts";

/** The `type` values an event listing filters on. */
export const EVENT_TYPES = ["payment", "payout", "other", "block"];

/** Events per page unless the client says, and the most it may ask for. */
export const DEFAULT_EVENT_LIMIT = 100;
export const MAX_EVENT_LIMIT = 1000;

export type EventListQuery = Omit<EventQuery, "accountId">;

/** Validates a listing's query parameters; every mistake is a failure naming the parameter. */
export function parseEventListQuery(query: RawQuery, isNetwork: (slug: string) => boolean): Result<{ query: EventListQuery }, InvalidInput> {
  const limit = integerParam(query, "limit", { min: 1, max: MAX_EVENT_LIMIT, fallback: DEFAULT_EVENT_LIMIT });
  if (isFailure(limit)) return limit;
  const values: Record<string, string | undefined> = {};
  for (const key of ["after", "type", "network", "watch_id"]) {
    const value = single(query, key);
    if (isFailure(value)) return value;
    values[key] = value;
  }
  const { after, type, network, watch_id } = values;
  if (type !== undefined && !EVENT_TYPES.includes(type)) return invalidInput(`type must be one of ${EVENT_TYPES.join(", ")}`);
  if (network !== undefined && !isNetwork(network)) return invalidInput(unknownNetwork(network));
  if (after === "") return invalidInput("after must not be empty");
  return { ok: true, query: { after: after ?? null, limit, type, network, watchId: watch_id || undefined } };
}

/**
 * One page of the events an account received (GET /v1/address-watch/events, the polling backup of
 * the webhooks), each body exactly as delivered; an unknown cursor is a failure, not an empty page.
 */
export async function listEventPage(
  deps: { db: Db; config: { networks: Record<string, NetworkConfig> } },
  accountId: string,
  query: RawQuery,
): Promise<EventPage> {
  const parsed = parseEventListQuery(query, (slug) => findNetwork(deps.config.networks, slug) !== undefined);
  if (!parsed.ok) return parsed;
  return listEvents(deps.db, { accountId, ...parsed.query });
}
