import { Type as T } from "@sinclair/typebox";
import { findNetwork, unknownNetwork } from "../config/networks.ts";
import type { Config } from "../config/schema.ts";
import type { Db } from "../db/database.ts";
import type { Account } from "../db/schema.ts";
import { enqueueDelivery } from "../delivery/outbox.ts";
import { chooseTarget } from "../delivery/route.ts";
import type { Clock } from "../lib/clock.ts";
import { type Failure, type InvalidInput, invalidInput, type Result } from "../lib/error-codes.ts";
import { checkBody } from "../lib/value-errors.ts";
import { TEST_EVENTS, type TestEvent, testPayload } from "./sample-payloads.ts";

// The Test button of the webhook settings (API, cabinet, `chainwatch webhook test`): a sample of
// any kind, address watch or payment order, queued through the outbox like the real thing. Its own
// folder, because the samples come from both watch/ and payments/, which stand above delivery/.

/** The body of POST /v1/address-watch/webhook/test: which subscription (event × network) to imitate. */
export const WebhookTestSchema = T.Object(
  {
    event: T.String({ enum: [...TEST_EVENTS], description: TEST_EVENTS.join(" | ") }),
    network: T.String({ description: "A network slug from GET /v1/endpoints" }),
  },
  { additionalProperties: false },
);

export type QueueTestResult = Result<{ deliveryId: string }, InvalidInput | Failure<"NO_WEBHOOK_URL" | "WEBHOOK_DISABLED">>;

/**
 * Queues one test delivery (never billed, no event row) for the API's Test button and the CLI.
 * A bad event or network names the field; a test with nowhere to go says why. The caller wakes the loop.
 */
export async function queueTestDelivery(
  deps: { db: Db; config: Config; nowMs: number },
  account: Pick<Account, "id" | "webhook_url" | "webhook_enabled" | "payments_webhook_url">,
  input: { event: string; network: string },
): Promise<QueueTestResult> {
  if (!(TEST_EVENTS as readonly string[]).includes(input.event))
    return invalidInput(`event must be one of ${TEST_EVENTS.join(", ")}`);
  const net = findNetwork(deps.config.networks, input.network);
  if (!net) return invalidInput(unknownNetwork(input.network));
  const event = input.event as TestEvent;
  // Refuse up front what could never be delivered; the route is still re-read at send time.
  const target = chooseTarget({ kind: "test", event_type: event }, account);
  if (!target.ok) return target;
  const body = testPayload(event, input.network, net.family, net.decimals, deps.nowMs);
  const deliveryId = await enqueueDelivery(deps.db, {
    accountId: account.id,
    kind: "test",
    eventType: event,
    network: input.network,
    body,
    nowMs: deps.nowMs,
  });
  return { ok: true, deliveryId };
}

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
export async function queueTest(deps: QueueTestDeps, accountId: string, body: unknown): Promise<QueueTestResult> {
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
  return queued;
}
