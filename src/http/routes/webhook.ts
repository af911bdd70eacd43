import type { TSchema } from "@sinclair/typebox";
import { Elysia } from "elysia";
import { findNetwork } from "../../config/networks.ts";
import { readWebhookSettings, updateWebhookSettings, type WebhookSettings, WebhookUpdateSchema } from "../../watch/webhook-settings.ts";
import { type AppDeps, signatureDeps, urlSettingsDeps } from "../deps.ts";
import { badRequest } from "../errors.ts";
import { signature } from "../plugins/signature.ts";

/** GET and PUT /v1/address-watch/webhook (the test trigger lives with delivery). */
export function webhookRoutes(deps: AppDeps) {
  const view = (s: WebhookSettings) => ({ ...s, egress_ips: deps.config.delivery.egress_ips });
  return new Elysia()
    .use(signature(signatureDeps(deps)))
    .get("/v1/address-watch/webhook", async ({ auth }) => view(await readWebhookSettings(deps.db, auth.accountId)), {
      detail: { summary: "The address-watch webhook: url, enabled, event filters and egress IPs", tags: ["address-watch"] },
    })
    .put(
      "/v1/address-watch/webhook",
      async ({ auth, body }) => {
        const outcome = await updateWebhookSettings(
          { ...urlSettingsDeps(deps), isNetwork: (slug) => findNetwork(deps.config.networks, slug) !== undefined },
          auth.accountId,
          body,
        );
        if (!outcome.ok) throw badRequest(outcome.error);
        return view(outcome.value);
      },
      {
        detail: {
          summary: "Set the webhook; `events` keys given replace, keys left out keep their value",
          tags: ["address-watch"],
          requestBody: { content: { "application/json": { schema: WebhookUpdateSchema as TSchema } } },
        },
      },
    );
}
