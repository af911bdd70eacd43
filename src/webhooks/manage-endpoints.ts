import { findNetwork } from "../config/networks.ts";
import type { Db, Executor } from "../db/database.ts";
import { lockAccount } from "../db/primitives.ts";
import { endRemovedEndpointDeliveries } from "../delivery/endpoint-deliveries.ts";
import { newWebhookSecret } from "../delivery/signer.ts";
import { type Failure, fail, type InvalidInput, type Result } from "../lib/error-codes.ts";
import { rfc3339 } from "../lib/time.ts";
import type { TargetFailure } from "../net/target-guard.ts";
import { resolveNotices } from "../notices/notices.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import {
  accountEndpoints,
  countEndpoints,
  deleteEndpointRow,
  type Endpoint,
  endpointLimit,
  findEndpoint,
  insertEndpoint,
} from "./endpoints.ts";
import { DEFAULT_ENDPOINT_FILTERS, type EventFilters, mergeFilters } from "./filters.ts";
import { EndpointCreateSchema, EndpointPatchSchema, parseSettingsChange } from "./settings.ts";
import { applyChange, checkTarget, type SettingsDeps, storeSettings } from "./store-settings.ts";

// The endpoints API (POST, GET, PATCH, DELETE /v1/webhooks/endpoints…; the CLI's `webhook
// endpoints`): an account's several endpoints, each with its own URL, filters, rate and secret, up
// to its plan's `max_endpoints`. Another account's endpoint is not found.

export type EndpointsDeps = SettingsDeps & { db: Db; box: SecretBox };

/** An endpoint as the API shows it; `secret` only in the answer that made it. */
export type EndpointView = {
  endpoint_id: string;
  url: string | null;
  enabled: boolean;
  description: string | null;
  events: EventFilters;
  delivery: { max_rps: number };
  created_at: string;
};

/** An endpoint in the API's shape: its rate limit, else the config's. */
export function endpointView(config: SettingsDeps["config"], e: Endpoint): EndpointView {
  return {
    endpoint_id: e.id,
    url: e.url,
    enabled: e.enabled,
    description: e.description,
    events: e.events,
    delivery: { max_rps: e.maxRps ?? config.delivery.max_rps },
    created_at: rfc3339(e.createdAt),
  };
}

const isNetworkOf = (deps: SettingsDeps) => (slug: string) => findNetwork(deps.config.networks, slug) !== undefined;

/**
 * The endpoint an account is created with, in the account's transaction: no URL, switched off,
 * every event kind, sealed `secret` (the one `accounts create` prints). Made first, it is the
 * account's default endpoint for as long as it exists.
 */
export async function createDefaultEndpoint(db: Executor, input: { accountId: string; sealedSecret: string; nowMs: number }): Promise<Endpoint> {
  return insertEndpoint(db, {
    accountId: input.accountId,
    settings: { url: null, enabled: false, description: null, events: DEFAULT_ENDPOINT_FILTERS, maxRps: null },
    sealedSecret: input.sealedSecret,
    nowMs: input.nowMs,
  });
}

export type CreatedEndpoint = Result<{ endpoint: EndpointView & { secret: string } }, InvalidInput | TargetFailure | Failure<"ENDPOINT_LIMIT">>;

/**
 * Adds an endpoint (POST /v1/webhooks/endpoints): the URL checked for a private target first, then,
 * with the account locked, its plan's `max_endpoints` (403 past it) and the row with a new secret,
 * shown in this answer only. Switched on unless `enabled: false`; filters from the defaults with
 * the keys given.
 */
export async function createEndpoint(deps: EndpointsDeps, accountId: string, body: unknown, opts: { urlField?: string } = {}): Promise<CreatedEndpoint> {
  const parsed = parseSettingsChange(EndpointCreateSchema, body, isNetworkOf(deps), { urlField: opts.urlField });
  if (!parsed.ok) return parsed;
  const target = await checkTarget(deps, parsed.value, opts.urlField);
  if (!target.ok) return target;
  const change = parsed.value;
  const secret = newWebhookSecret();
  const nowMs = deps.clock.now();
  return deps.db.transaction().execute(async (trx) => {
    // Two creations at once cannot both take the last place under the limit.
    await lockAccount(trx, accountId);
    if ((await countEndpoints(trx, accountId)) >= (await endpointLimit(trx, accountId))) return fail("ENDPOINT_LIMIT");
    const settings = {
      url: change.url ?? null,
      enabled: change.enabled ?? true,
      description: change.description ?? null,
      events: mergeFilters(DEFAULT_ENDPOINT_FILTERS, change.events),
      maxRps: change.maxRps ?? null,
    };
    const endpoint = await insertEndpoint(trx, { accountId, settings, sealedSecret: deps.box.seal(secret), nowMs });
    return { ok: true, endpoint: { ...endpointView(deps.config, endpoint), secret } };
  });
}

/** The account's endpoints, oldest (the default) first; no secrets. */
export async function listEndpoints(deps: Pick<EndpointsDeps, "db" | "config">, accountId: string): Promise<{ endpoints: EndpointView[] }> {
  return { endpoints: (await accountEndpoints(deps.db, accountId)).map((e) => endpointView(deps.config, e)) };
}

/** One of the account's endpoints (another account's: ENDPOINT_NOT_FOUND). */
export async function getEndpoint(deps: Pick<EndpointsDeps, "db" | "config">, accountId: string, endpointId: string): Promise<Result<{ endpoint: EndpointView }, Failure<"ENDPOINT_NOT_FOUND">>> {
  const endpoint = await findEndpoint(deps.db, accountId, endpointId);
  if (!endpoint) return fail("ENDPOINT_NOT_FOUND");
  return { ok: true, endpoint: endpointView(deps.config, endpoint) };
}

/**
 * Changes only the keys given (PATCH /v1/webhooks/endpoints/{id}); `events` keys as PUT /v1/address-watch/webhook:
 * given keys replace, the others stay. `enabled: true` needs a URL, given or stored.
 */
export async function patchEndpoint(
  deps: EndpointsDeps,
  accountId: string,
  endpointId: string,
  body: unknown,
  opts: { urlField?: string } = {},
): Promise<Result<{ endpoint: EndpointView }, InvalidInput | TargetFailure | Failure<"ENDPOINT_NOT_FOUND">>> {
  // An unknown id answers 404 before the body is looked at, as for any record.
  if (!(await findEndpoint(deps.db, accountId, endpointId))) return fail("ENDPOINT_NOT_FOUND");
  const parsed = parseSettingsChange(EndpointPatchSchema, body, isNetworkOf(deps), { urlField: opts.urlField });
  if (!parsed.ok) return parsed;
  const target = await checkTarget(deps, parsed.value, opts.urlField);
  if (!target.ok) return target;
  return deps.db.transaction().execute(async (trx) => {
    const current = await findEndpoint(trx, accountId, endpointId);
    if (!current) return fail("ENDPOINT_NOT_FOUND");
    const next = applyChange(current, parsed.value);
    if (!next.ok) return next;
    await storeSettings(trx, deps, current, next.settings);
    return { ok: true, endpoint: endpointView(deps.config, { ...current, ...next.settings }) };
  });
}

/**
 * Removes an endpoint (DELETE /v1/webhooks/endpoints/{id}): its unfinished deliveries end `failed`
 * (endpoint-deliveries.ts), its health goes, its open `endpoint_disabled` notice is resolved. The
 * account's last endpoint stays (LAST_ENDPOINT): an account always has a default endpoint, whose
 * secret `accounts show` prints and the payments URL is signed with. Removing the default makes the
 * next oldest the default.
 */
export async function removeEndpoint(
  deps: Pick<EndpointsDeps, "db" | "clock">,
  accountId: string,
  endpointId: string,
): Promise<Result<{ endpoint_id: string; deleted: true }, Failure<"ENDPOINT_NOT_FOUND" | "LAST_ENDPOINT">>> {
  const nowMs = deps.clock.now();
  return deps.db.transaction().execute(async (trx) => {
    await lockAccount(trx, accountId);
    const endpoint = await findEndpoint(trx, accountId, endpointId);
    if (!endpoint) return fail("ENDPOINT_NOT_FOUND");
    if ((await countEndpoints(trx, accountId)) <= 1) return fail("LAST_ENDPOINT");
    await endRemovedEndpointDeliveries(trx, { accountId, endpointId }, nowMs);
    await resolveNotices(trx, { type: "endpoint_disabled", accountIds: [accountId], endpointId }, nowMs);
    await deleteEndpointRow(trx, endpointId);
    return { ok: true, endpoint_id: endpointId, deleted: true as const };
  });
}
