import { Elysia } from "elysia";
import { readWebhookHealth } from "../../delivery/webhook-health.ts";
import { readWebhook, updateWebhook } from "../../watch/update-webhook.ts";
import { type AppDeps, signatureDeps } from "../deps.ts";
import { fromFailure } from "../errors.ts";
import { signature } from "../plugins/signature.ts";
import { jsonRequest, responses } from "../openapi/responses.ts";

/** GET and PUT /v1/address-watch/webhook and GET …/webhook/health (the test trigger lives with delivery). */
export function webhookRoutes(deps: AppDeps) {
  return new Elysia()
    .use(signature(signatureDeps(deps)))
    .get("/v1/address-watch/webhook", async ({ auth }) => readWebhook(deps, auth.accountId), {
      detail: { summary: "The address-watch webhook: url, enabled, event filters and egress IPs", tags: ["address-watch"], responses: responses({ 200: ["WebhookSettings", "The webhook"] }) },
    })
    .put(
      "/v1/address-watch/webhook",
      async ({ auth, body }) => {
        const outcome = await updateWebhook(deps, auth.accountId, body);
        if (!outcome.ok) throw fromFailure(outcome);
        return outcome.webhook;
      },
      {
        detail: {
          summary: "Set the webhook; `events` keys given replace, keys left out keep their value",
          tags: ["address-watch"],
          requestBody: jsonRequest("WebhookUpdate"),
          responses: responses({ 200: ["WebhookSettings", "The webhook as stored"] }, [[400, "A field error, a refused URL (private target, not http(s)), or url required when enabled"], 413, 415]),
        },
      },
    )
    .get("/v1/address-watch/webhook/health", async ({ auth }) => (await readWebhookHealth(deps, auth.accountId)).view, {
      detail: {
        summary: "The webhook endpoint's health: its current run of failures, last success and error, deliveries pending and failed",
        description:
          "After delivery.disable_after_hours of nothing but failed attempts the webhook is switched off (enabled: false, state disabled); its deliveries wait unattempted and events keep being stored. PUT the webhook with enabled: true to switch it on again: the run is cleared and what waited goes out.",
        tags: ["address-watch"],
        responses: responses({ 200: ["WebhookHealth", "The endpoint's health"] }),
      },
    });
}
