import { Type as T } from "@sinclair/typebox";
import type { Config } from "../config/schema.ts";
import type { Db } from "../db/database.ts";
import type { Clock } from "../lib/clock.ts";
import type { Failure, InvalidInput, Result } from "../lib/error-codes.ts";
import { checkBody } from "../lib/value-errors.ts";
import { queueTestDelivery, TEST_EVENTS } from "./test-payloads.ts";

/** The body of POST /v1/address-watch/webhook/test: which subscription (event × network) to imitate. */
export const WebhookTestSchema = T.Object(
  {
    event: T.String({ enum: [...TEST_EVENTS], description: TEST_EVENTS.join(" | ") }),
    network: T.String({ description: "A network slug from GET /v1/endpoints" }),
  },
  { additionalProperties: false },
);

export type QueueTestDeps = {
  db: Db;
  clock: Clock;
  config: Config;
  /** Called once the test is queued, so the delivery loop sends it at once. */
  wakeDelivery: () => void;
};

/**
 * Queues a signed, never-billed test delivery for an account (the API's and the cabinet's Test
 * button) and wakes the loop; the receiver's answer lands in the delivery's attempts.
 */
export async function queueTest(
  deps: QueueTestDeps,
  accountId: string,
  body: unknown,
): Promise<Result<{ deliveryId: string }, InvalidInput | Failure<"NO_WEBHOOK_URL" | "WEBHOOK_DISABLED">>> {
  // The shape only; queueTestDelivery names the allowed events and checks the network.
  const checked = checkBody(WebhookTestSchema, body);
  if (!checked.ok) return checked;
  const route = await deps.db
    .selectFrom("accounts")
    .select(["id", "webhook_url", "webhook_enabled", "payments_webhook_url"])
    .where("id", "=", accountId)
    .executeTakeFirstOrThrow();
  const queued = await queueTestDelivery({ db: deps.db, config: deps.config, nowMs: deps.clock.now() }, route, checked.body);
  if (!queued.ok) return queued;
  deps.wakeDelivery();
  return { ok: true, deliveryId: queued.deliveryId };
}
