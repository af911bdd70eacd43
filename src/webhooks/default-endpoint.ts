import { findNetwork } from "../config/networks.ts";
import type { Db } from "../db/database.ts";
import type { InvalidInput, Result } from "../lib/error-codes.ts";
import type { TargetFailure } from "../net/target-guard.ts";
import { defaultEndpoint, type Endpoint } from "./endpoints.ts";
import { type WatchFilters, watchFilters } from "./filters.ts";
import { parseWebhookUpdate } from "./settings.ts";
import { applyChange, checkTarget, type SettingsDeps, storeSettings } from "./store-settings.ts";

// The single address-watch webhook (GET and PUT /v1/address-watch/webhook, the cabinet's
// settings form, `chainwatch webhook set`): the account's default endpoint, its oldest, shown and
// set in its own shape (as before endpoints). Its `payment_order` filter and description are the endpoints API's.

/** The webhook as GET /v1/address-watch/webhook shows it: the settings, the daemon's egress IPs and its delivery rate. */
export type WebhookView = { url: string | null; enabled: boolean; events: WatchFilters; egress_ips: string[]; delivery: { max_rps: number } };

export type WebhookDeps = SettingsDeps & { db: Db };

/** An endpoint in the address-watch webhook's shape: its rate limit, else the config's. */
export function webhookView(config: SettingsDeps["config"], e: Endpoint): WebhookView {
  return { url: e.url, enabled: e.enabled, events: watchFilters(e.events), egress_ips: config.delivery.egress_ips, delivery: { max_rps: e.maxRps ?? config.delivery.max_rps } };
}

/** The account's address-watch webhook: its default endpoint. */
export async function readWebhook(deps: Pick<WebhookDeps, "db" | "config">, accountId: string): Promise<WebhookView> {
  return webhookView(deps.config, await defaultEndpoint(deps.db, accountId));
}

/**
 * Applies a PUT /v1/address-watch/webhook body to the default endpoint: one set of rules for the
 * API, the cabinet and the CLI, the private-target guard included. `urlField` names the URL in the
 * sentences (`url` unless told). The filter merge runs inside the transaction, so two concurrent
 * PUTs of different keys both keep their change.
 */
export async function updateWebhook(
  deps: WebhookDeps,
  accountId: string,
  body: unknown,
  opts: { urlField?: string } = {},
): Promise<Result<{ webhook: WebhookView }, InvalidInput | TargetFailure>> {
  const parsed = parseWebhookUpdate(body, (slug) => findNetwork(deps.config.networks, slug) !== undefined, opts.urlField);
  if (!parsed.ok) return parsed;
  const target = await checkTarget(deps, parsed.value, opts.urlField);
  if (!target.ok) return target;
  return deps.db.transaction().execute(async (trx) => {
    const current = await defaultEndpoint(trx, accountId);
    const next = applyChange(current, parsed.value);
    if (!next.ok) return next;
    await storeSettings(trx, deps, current, next.settings);
    return { ok: true, webhook: webhookView(deps.config, { ...current, ...next.settings }) };
  });
}
