import { Type as T } from "@sinclair/typebox";
import { findNetwork, unknownNetwork } from "../config/networks.ts";
import type { Config } from "../config/schema.ts";
import type { Db, Executor } from "../db/database.ts";
import { enqueueDelivery } from "../delivery/outbox.ts";
import type { Clock } from "../lib/clock.ts";
import { type Failure, fail, type InvalidInput, invalidInput, type Result } from "../lib/error-codes.ts";
import { checkBody } from "../lib/value-errors.ts";
import { defaultEndpoint, type Endpoint, type EndpointRef, findEndpoint } from "./endpoints.ts";
import { type PaymentOrderSample, TEST_EVENTS, type TestEvent, testPayload } from "./samples.ts";

// The Test button (API, cabinet, `chainwatch webhook test`, `chainwatch webhook endpoints test`): a
// sample of any kind, address watch or payment order, queued through the outbox like the real
// thing, signed like it, marked `X-Webhook-Test: true` and never billed.

/** The body of a test: which subscription (event × network) to imitate. */
export const WebhookTestSchema = T.Object(
  {
    event: T.String({ enum: [...TEST_EVENTS], description: TEST_EVENTS.join(" | ") }),
    network: T.String({ description: "A network slug from GET /v1/endpoints" }),
  },
  { additionalProperties: false },
);

/** What a test needs of payments/, which stands above this folder: its sample body, and the account's payments URL. */
export type TestPayments = { sample: PaymentOrderSample; webhookUrl(db: Executor, accountId: string): Promise<string | null> };

export type QueueTestDeps = {
  db: Db;
  clock: Clock;
  config: Config;
  payments: TestPayments;
  /** Called once the test is queued, so the delivery loop sends it at once. */
  wakeDelivery: () => void;
};

export type QueueTestResult = Result<{ deliveryId: string }, InvalidInput | Failure<"NO_WEBHOOK_URL" | "WEBHOOK_DISABLED" | "ENDPOINT_NOT_FOUND">>;

/**
 * Queues one test delivery (never billed, no event row) and wakes the loop. A bad event or network
 * names the field; a test with nowhere to go says why.
 *
 * To an endpoint by id: its URL, whatever the kind, even while it is disabled (a receiver can be
 * checked before it is switched on); NO_WEBHOOK_URL without one. To the address-watch webhook (`default`,
 * the default endpoint), the route of the kind it imitates: an address-watch kind to the default
 * endpoint's URL (even while disabled); a payment order to the payments URL when one is set, else
 * to the default endpoint while it is enabled.
 */
export async function queueTest(deps: QueueTestDeps, accountId: string, ref: EndpointRef, body: unknown): Promise<QueueTestResult> {
  let endpoint: Endpoint | undefined;
  if (ref !== "default") {
    endpoint = await findEndpoint(deps.db, accountId, ref.endpointId);
    if (!endpoint) return fail("ENDPOINT_NOT_FOUND");
  }
  // The shape only; the allowed events and the network are checked below, naming the field.
  const checked = checkBody(WebhookTestSchema, body);
  if (!checked.ok) return checked;
  const input = checked.body;
  if (!(TEST_EVENTS as readonly string[]).includes(input.event)) return invalidInput(`event must be one of ${TEST_EVENTS.join(", ")}`);
  const net = findNetwork(deps.config.networks, input.network);
  if (!net) return invalidInput(unknownNetwork(input.network));
  const event = input.event as TestEvent;
  // Refuse up front what could never be delivered; the route is read again when it is sent.
  const to = endpoint ? endpointRoute(endpoint) : await webhookRoute(deps, accountId, event);
  if (!to.ok) return to;
  const nowMs = deps.clock.now();
  const deliveryId = await enqueueDelivery(deps.db, {
    accountId,
    endpointId: to.endpointId,
    kind: "test",
    eventType: event,
    network: input.network,
    body: testPayload(event, input.network, net.family, net.decimals, nowMs, deps.payments.sample),
    nowMs,
  });
  deps.wakeDelivery();
  return { ok: true, deliveryId };
}

type Route = Result<{ endpointId: string | null }, Failure<"NO_WEBHOOK_URL" | "WEBHOOK_DISABLED">>;

function endpointRoute(e: Endpoint): Route {
  return e.url ? { ok: true, endpointId: e.id } : fail("NO_WEBHOOK_URL");
}

/** The address-watch webhook's route of a test of `event`: the payments URL (endpoint null) for a payment order when set, else the default endpoint. */
async function webhookRoute(deps: QueueTestDeps, accountId: string, event: TestEvent): Promise<Route> {
  const endpoint = await defaultEndpoint(deps.db, accountId);
  if (event !== "payment_order") return endpointRoute(endpoint);
  if (await deps.payments.webhookUrl(deps.db, accountId)) return { ok: true, endpointId: null };
  if (endpoint.url && endpoint.enabled) return { ok: true, endpointId: endpoint.id };
  return fail(endpoint.url ? "WEBHOOK_DISABLED" : "NO_WEBHOOK_URL");
}
