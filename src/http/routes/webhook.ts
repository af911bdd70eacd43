import { Elysia } from "elysia";
import { readWebhook, updateWebhook } from "../../webhooks/default-endpoint.ts";
import { readEndpointHealth } from "../../webhooks/endpoint-health.ts";
import { rotatedView } from "../../webhooks/endpoint-secret.ts";
import { defaultEndpoint } from "../../webhooks/endpoints.ts";
import { rotateSecret } from "../../webhooks/rotate-secret.ts";
import { type AppDeps, signatureDeps } from "../deps.ts";
import { fromFailure } from "../errors.ts";
import { signature } from "../plugins/signature.ts";
import { jsonRequest, responses } from "../openapi/responses.ts";

/**
 * GET and PUT /v1/address-watch/webhook, GET …/webhook/health and POST …/webhook/secret/rotate:
 * the account's default webhook endpoint in the address-watch webhook's shapes (the test trigger, the recovery and
 * the endpoints API have their own modules).
 */
export function webhookRoutes(deps: AppDeps) {
  return new Elysia()
    .use(signature(signatureDeps(deps)))
    .get("/v1/address-watch/webhook", async ({ auth }) => readWebhook(deps, auth.accountId), {
      detail: {
        summary: "The address-watch webhook (the account's default endpoint): url, enabled, event filters and egress IPs",
        tags: ["address-watch"],
        responses: responses({ 200: ["WebhookSettings", "The webhook"] }),
      },
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
          summary: "Set the webhook (the account's default endpoint); `events` keys given replace, keys left out keep their value",
          tags: ["address-watch"],
          requestBody: jsonRequest("WebhookUpdate"),
          responses: responses({ 200: ["WebhookSettings", "The webhook as stored"] }, [[400, "A field error, a refused URL (private target, not http(s)), or url required when enabled"], 413, 415]),
        },
      },
    )
    .get("/v1/address-watch/webhook/health", async ({ auth }) => (await readEndpointHealth(deps.db, await defaultEndpoint(deps.db, auth.accountId))).view, {
      detail: {
        summary: "The webhook endpoint's health: its current run of failures, last success and error, deliveries pending and failed",
        description:
          "After delivery.disable_after_hours of nothing but failed attempts the webhook is switched off (enabled: false, state disabled); its deliveries wait unattempted and events keep being stored. PUT the webhook with enabled: true to switch it on again: the run is cleared and what waited goes out.",
        tags: ["address-watch"],
        responses: responses({ 200: ["WebhookHealth", "The endpoint's health"] }),
      },
    })
    .post(
      "/v1/address-watch/webhook/secret/rotate",
      async ({ auth, body }) => {
        const rotated = await rotateSecret(deps, auth.accountId, "default", body);
        if (!rotated.ok) throw fromFailure(rotated);
        return rotatedView(rotated);
      },
      {
        detail: {
          summary: "Replace the webhook secret; the previous one keeps signing beside it for grace_seconds (default a day)",
          description:
            "The new whsec_ secret is in this answer only. Until previous_expires_at every webhook's webhook-signature carries two signatures, `v1,<by the previous secret> v1,<by the new one>`, so a receiver verifies with either; X-Signature is always by the new secret. A second rotation within the grace period ends the previous secret at once: at most two secrets sign.",
          tags: ["address-watch"],
          requestBody: { ...jsonRequest("RotateWebhookSecret"), required: false },
          responses: responses({ 200: ["RotatedWebhookSecret", "The new secret, shown this once"] }, [[400, "grace_seconds not an integer from 0 to 604800, or another field"], 413, 415]),
        },
      },
    );
}
