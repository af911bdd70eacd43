import { Elysia } from "elysia";
import { findNetwork } from "../../config/networks.ts";
import { readWebhookSettings, updateWebhookSettings, type WebhookSettings } from "../../watch/webhook-settings.ts";
import { type AppDeps, signatureDeps, urlSettingsDeps } from "../deps.ts";
import { fromFailure } from "../errors.ts";
import { signature } from "../plugins/signature.ts";
import { jsonRequest, responses } from "../openapi/responses.ts";

/** The webhook as GET /v1/address-watch/webhook shows it: the settings plus the daemon's egress IPs. */
export function webhookView(deps: AppDeps, s: WebhookSettings) {
  return { ...s, egress_ips: deps.config.delivery.egress_ips };
}

/** Applies a PUT /v1/address-watch/webhook body (API and cabinet): one set of rules, incl. the SSRF URL guard. */
export async function updateWebhookRequest(deps: AppDeps, accountId: string, body: unknown) {
  const outcome = await updateWebhookSettings(
    { ...urlSettingsDeps(deps), isNetwork: (slug) => findNetwork(deps.config.networks, slug) !== undefined },
    accountId,
    body,
  );
  if (!outcome.ok) throw fromFailure(outcome);
  return webhookView(deps, outcome.value);
}

/** GET and PUT /v1/address-watch/webhook (the test trigger lives with delivery). */
export function webhookRoutes(deps: AppDeps) {
  const view = (s: WebhookSettings) => webhookView(deps, s);
  return new Elysia()
    .use(signature(signatureDeps(deps)))
    .get("/v1/address-watch/webhook", async ({ auth }) => view(await readWebhookSettings(deps.db, auth.accountId)), {
      detail: { summary: "The address-watch webhook: url, enabled, event filters and egress IPs", tags: ["address-watch"], responses: responses({ 200: ["WebhookSettings", "The webhook"] }) },
    })
    .put(
      "/v1/address-watch/webhook",
      async ({ auth, body }) => updateWebhookRequest(deps, auth.accountId, body),
      {
        detail: {
          summary: "Set the webhook; `events` keys given replace, keys left out keep their value",
          tags: ["address-watch"],
          requestBody: jsonRequest("WebhookUpdate"),
          responses: responses({ 200: ["WebhookSettings", "The webhook as stored"] }, [[400, "A field error, a refused URL (private target, not http(s)), or url required when enabled"], 413, 415]),
        },
      },
    );
}
