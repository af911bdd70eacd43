import { Elysia } from "elysia";
import { testPayments } from "../../payments/sample-order.ts";
import { queueTest } from "../../webhooks/test-endpoint.ts";
import { type AppDeps, signatureDeps } from "../deps.ts";
import { fromFailure } from "../errors.ts";
import { signature } from "../plugins/signature.ts";
import { jsonRequest, responses } from "../openapi/responses.ts";

/** POST /v1/address-watch/webhook/test: queues a signed, never-billed test delivery and answers at once. */
export function webhookTestRoutes(deps: AppDeps) {
  return new Elysia().use(signature(signatureDeps(deps))).post(
    "/v1/address-watch/webhook/test",
    async ({ auth, body, set }) => {
      const queued = await queueTest({ ...deps, payments: testPayments }, auth.accountId, "default", body);
      if (!queued.ok) throw fromFailure(queued);
      set.status = 202;
      return { queued: true, delivery_id: queued.deliveryId };
    },
    {
      detail: {
        summary: "Queue a test webhook of one kind on one network; answers 202 without waiting for the receiver",
        tags: ["address-watch"],
        requestBody: jsonRequest("WebhookTest"),
        responses: responses({ 202: ["TestQueued", "Queued; the receiver's answer is in the delivery's attempts"] }, [[400, "Unknown event or network, or no webhook URL"], 413, 415]),
      },
    },
  );
}
