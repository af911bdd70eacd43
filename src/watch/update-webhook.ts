import type { Kysely } from "kysely";
import { findNetwork } from "../config/networks.ts";
import type { Config } from "../config/schema.ts";
import type { DB } from "../db/schema.ts";
import type { Clock } from "../lib/clock.ts";
import type { InvalidInput, Result } from "../lib/error-codes.ts";
import type { Resolver, TargetFailure } from "../net/target-guard.ts";
import { readStoredWebhook, type StoredWebhook, updateWebhookSettings, type WebhookSettings } from "./webhook-settings.ts";

/**
 * The webhook as GET /v1/address-watch/webhook shows it: the settings, the daemon's egress IPs, and
 * how it is sent to (the account's rate limit, else the config's).
 */
export type WebhookView = WebhookSettings & { egress_ips: string[]; delivery: { max_rps: number } };

export type WebhookDeps = {
  db: Kysely<DB>;
  clock: Clock;
  config: Pick<Config, "networks" | "delivery">;
  /** Resolves webhook hostnames for the private-target check. */
  resolveHost: Resolver;
};

/** The settings as a client is shown them. */
export function webhookView(config: Pick<Config, "delivery">, s: StoredWebhook): WebhookView {
  return { url: s.url, enabled: s.enabled, events: s.events, egress_ips: config.delivery.egress_ips, delivery: { max_rps: s.maxRps ?? config.delivery.max_rps } };
}

/** An account's address-watch webhook. */
export async function readWebhook(deps: Pick<WebhookDeps, "db" | "config">, accountId: string): Promise<WebhookView> {
  return webhookView(deps.config, await readStoredWebhook(deps.db, accountId));
}

/**
 * Applies a PUT /v1/address-watch/webhook body: one set of rules for the API, the cabinet and the
 * CLI, the private-target guard included. `urlField` names the URL in the sentences (`url`
 * unless told).
 */
export async function updateWebhook(
  deps: WebhookDeps,
  accountId: string,
  body: unknown,
  opts: { urlField?: string } = {},
): Promise<Result<{ webhook: WebhookView }, InvalidInput | TargetFailure>> {
  const outcome = await updateWebhookSettings(
    {
      db: deps.db,
      clock: deps.clock,
      resolve: deps.resolveHost,
      allowPrivate: deps.config.delivery.allow_private_targets,
      isNetwork: (slug) => findNetwork(deps.config.networks, slug) !== undefined,
      defaultMaxRps: deps.config.delivery.max_rps,
    },
    accountId,
    body,
    opts,
  );
  if (!outcome.ok) return outcome;
  return { ok: true, webhook: webhookView(deps.config, outcome.value) };
}
