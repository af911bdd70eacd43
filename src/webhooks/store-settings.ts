import type { Config } from "../config/schema.ts";
import type { Executor } from "../db/database.ts";
import { sendWaitingDeliveries } from "../delivery/endpoint-deliveries.ts";
import { releaseRateSlots } from "../delivery/rate-slots.ts";
import { type InvalidInput, type Result } from "../lib/error-codes.ts";
import { checkWebhookTarget, type Resolver, type TargetFailure } from "../net/target-guard.ts";
import { resolveNotices } from "../notices/notices.ts";
import { type Endpoint, type EndpointSettings, saveEndpointSettings } from "./endpoints.ts";
import { mergeFilters } from "./filters.ts";
import { clearEndpointRun } from "./health-store.ts";
import { type SettingsChange, URL_REQUIRED } from "./settings.ts";

// Storing an endpoint's settings, one set of rules for every way in (PUT /v1/address-watch/webhook, the endpoints
// API's PATCH, the cabinet, the CLI): a change applied over what is stored, the URL checked for
// a private target before any transaction (no network I/O while holding SQLite's writer), and
// what a change means for delivery done in the transaction that stores it.

export type SettingsDeps = {
  clock: { now(): number };
  config: Pick<Config, "networks" | "delivery">;
  /** Resolves webhook hostnames for the private-target check. */
  resolveHost: Resolver;
};

/** Checks a URL a change sets (absolute http(s), no credentials, public after DNS unless private targets are allowed). */
export async function checkTarget(deps: SettingsDeps, change: SettingsChange, urlField?: string): Promise<Result<object, TargetFailure>> {
  if (typeof change.url !== "string") return { ok: true };
  return checkWebhookTarget(change.url, { allowPrivate: deps.config.delivery.allow_private_targets, resolve: deps.resolveHost, field: urlField });
}

/** The settings a change leaves: keys given replace, others stay (`events` keys likewise); `enabled: true` needs a URL. */
export function applyChange(current: EndpointSettings, change: SettingsChange): Result<{ settings: EndpointSettings }, InvalidInput> {
  const settings: EndpointSettings = {
    url: change.url === undefined ? current.url : change.url,
    enabled: change.enabled ?? current.enabled,
    description: change.description === undefined ? current.description : change.description,
    events: mergeFilters(current.events, change.events),
    maxRps: change.maxRps ?? current.maxRps,
  };
  if (settings.enabled && settings.url === null) return URL_REQUIRED;
  return { ok: true, settings };
}

/**
 * Stores `next` over `current` in the caller's transaction, with what it means for delivery:
 * switched on again (after a run of failures disabled it, say) or pointed elsewhere while on, the
 * endpoint starts with a clean record, what waited for it goes out now and its `endpoint_disabled`
 * notice is resolved; a new rate places what waits for a slot of the old one again at the new one.
 */
export async function storeSettings(db: Executor, deps: SettingsDeps, current: Endpoint, next: EndpointSettings): Promise<void> {
  const nowMs = deps.clock.now();
  await saveEndpointSettings(db, current.id, next, nowMs);
  const of = { accountId: current.accountId, endpointId: current.id };
  if (next.enabled && (!current.enabled || current.url !== next.url)) {
    await clearEndpointRun(db, current.id, nowMs);
    await sendWaitingDeliveries(db, of, nowMs);
    await resolveNotices(db, { type: "endpoint_disabled", accountIds: [current.accountId], endpointId: current.id }, nowMs);
    return;
  }
  const rate = (maxRps: number | null) => maxRps ?? deps.config.delivery.max_rps;
  if (rate(next.maxRps) !== rate(current.maxRps)) await releaseRateSlots(db, of, nowMs);
}
