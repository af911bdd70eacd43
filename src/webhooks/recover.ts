import { type Static, Type as T } from "@sinclair/typebox";
import type { Db } from "../db/database.ts";
import { type Recovered, type RecoverScope, requeueFailed } from "../delivery/requeue-failed.ts";
import type { Clock } from "../lib/clock.ts";
import { type Failure, fail, type InvalidInput, invalidInput, type Result } from "../lib/error-codes.ts";
import { unixSecondsSchema } from "../lib/time.ts";
import { checkBody } from "../lib/value-errors.ts";
import { type EndpointRef, endpointOf } from "./endpoints.ts";

// Recovery after a long outage (docs/webhooks.md): the deliveries that used up their attempts
// while a receiver was down go out again, as they were, once it is back. Per endpoint
// (POST /v1/webhooks/endpoints/{id}/recover), for the default endpoint and the payments URL (POST
// /v1/address-watch/webhook/recover), or for the whole account (the cabinet, the CLI).

export { MAX_RECOVERED_PER_CALL } from "../delivery/requeue-failed.ts";
export type { Recovered, RecoverScope };

/** The body of a recovery. */
export const RecoverSchema = T.Object(
  {
    since: unixSecondsSchema("Unix seconds: deliveries queued at or after this instant"),
    until: T.Optional(unixSecondsSchema("Unix seconds: deliveries queued before this instant; default now")),
  },
  { additionalProperties: false },
);

export type RecoverBody = Static<typeof RecoverSchema>;

export type RecoverDeps = {
  db: Db;
  clock: Clock;
  /** Called when something was re-queued, so the delivery loop sends it at once. */
  wakeDelivery: () => void;
};

/**
 * Re-queues the scope's `failed` address-watch and payment-order deliveries queued in
 * [since, until) (until: now), oldest first, at most MAX_RECOVERED_PER_CALL (delivery/requeue-failed.ts).
 * Charged like any delivery, on success.
 */
export async function recoverFailedDeliveries(deps: RecoverDeps, scope: RecoverScope, body: unknown): Promise<Result<Recovered, InvalidInput>> {
  const checked = checkBody(RecoverSchema, body);
  if (!checked.ok) return checked;
  const nowMs = deps.clock.now();
  const { since, until } = checked.body;
  if (since * 1000 > nowMs) return invalidInput("since must not be in the future");
  if (until !== undefined && until <= since) return invalidInput("until must be after since");
  const range = { fromMs: since * 1000, beforeMs: until === undefined ? nowMs + 1 : until * 1000 };
  const recovered = await requeueFailed(deps.db, scope, range, nowMs);
  if (recovered.requeued > 0) deps.wakeDelivery();
  return { ok: true, ...recovered };
}

/**
 * Recovers one endpoint's failed deliveries: by id (POST /v1/webhooks/endpoints/{id}/recover), or
 * the default endpoint's with the payment-order webhooks to the payments URL, which it signs (POST
 * /v1/address-watch/webhook/recover, as before endpoints).
 */
export async function recoverEndpoint(deps: RecoverDeps, accountId: string, ref: EndpointRef, body: unknown): Promise<Result<Recovered, InvalidInput | Failure<"ENDPOINT_NOT_FOUND">>> {
  const endpoint = await endpointOf(deps.db, accountId, ref);
  if (!endpoint) return fail("ENDPOINT_NOT_FOUND");
  return recoverFailedDeliveries(deps, { accountId, endpoints: { ids: [endpoint.id], paymentsUrl: ref === "default" } }, body);
}
