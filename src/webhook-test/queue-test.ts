import { findNetwork, unknownNetwork } from "../config/networks.ts";
import type { Config } from "../config/schema.ts";
import type { Db } from "../db/database.ts";
import type { Account } from "../db/schema.ts";
import { enqueueDelivery } from "../delivery/outbox.ts";
import { chooseTarget } from "../delivery/send.ts";
import { type InvalidInput, invalidInput } from "../lib/error-codes.ts";
import { TEST_EVENTS, type TestEvent, testPayload } from "./sample-payloads.ts";

// The Test button of the webhook settings (API, cabinet, `chainwatch webhook test`): a sample of
// any kind, address watch or payment order, queued through the outbox like the real thing. Its own
// folder, because the samples come from both watch/ and payments/, which stand above delivery/.

export type QueueTestResult = { ok: true; deliveryId: string } | InvalidInput;

/**
 * Queues one test delivery (never billed, no event row) for the API's Test button and the CLI.
 * Errors are client-facing sentences naming the field. The caller wakes the loop.
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
  if (!target.ok)
    return invalidInput(target.error === "webhook disabled" ? "Webhook is disabled and no payments webhook_url is set." : "No webhook URL configured.");
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
