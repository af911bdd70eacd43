import { Type as T } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { Elysia } from "elysia";
import { describeValueError } from "../../lib/value-errors.ts";
import { queueTestDelivery } from "../../webhook-test/queue-test.ts";
import { TEST_EVENTS } from "../../webhook-test/sample-payloads.ts";
import { type AppDeps, signatureDeps } from "../deps.ts";
import { badRequest, fromFailure } from "../errors.ts";
import { signature } from "../plugins/signature.ts";
import { loadAccount } from "./account.ts";
import { jsonRequest, responses } from "../openapi/responses.ts";

/** Body of the test trigger: which subscription (event × network) to imitate. */
export const WebhookTestSchema = T.Object(
  {
    event: T.String({ enum: [...TEST_EVENTS], description: TEST_EVENTS.join(" | ") }),
    network: T.String({ description: "A network slug from GET /v1/endpoints" }),
  },
  { additionalProperties: false },
);

/** Queues a test delivery from a POST /v1/address-watch/webhook/test body (API and cabinet) and wakes the loop. */
export async function queueTestRequest(deps: AppDeps, accountId: string, body: unknown): Promise<{ queued: true; delivery_id: string }> {
  // The shape only; queueTestDelivery names the allowed events and checks the network.
  const first = Value.Errors(WebhookTestSchema, body).First();
  if (first) throw badRequest(describeValueError(first));
  const input = body as { event: string; network: string };
  const account = await loadAccount(deps, accountId);
  const queued = await queueTestDelivery({ db: deps.db, config: deps.config, nowMs: deps.clock.now() }, account, input);
  if (!queued.ok) throw fromFailure(queued);
  deps.wakeDelivery();
  return { queued: true, delivery_id: queued.deliveryId };
}

/** POST /v1/address-watch/webhook/test: queues a signed, never-billed test delivery and answers at once. */
export function webhookTestRoutes(deps: AppDeps) {
  return new Elysia().use(signature(signatureDeps(deps))).post(
    "/v1/address-watch/webhook/test",
    async ({ auth, body, set }) => {
      const queued = await queueTestRequest(deps, auth.accountId, body);
      set.status = 202;
      return queued;
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
