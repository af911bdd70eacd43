import { Elysia } from "elysia";
import { testPayments } from "../../payments/sample-order.ts";
import { readEndpointHealth } from "../../webhooks/endpoint-health.ts";
import { rfc3339 } from "../../lib/time.ts";
import { findEndpoint } from "../../webhooks/endpoints.ts";
import { createEndpoint, getEndpoint, listEndpoints, patchEndpoint, removeEndpoint } from "../../webhooks/manage-endpoints.ts";
import { recoverEndpoint } from "../../webhooks/recover.ts";
import { replayEvents } from "../../webhooks/replay.ts";
import { rotateSecret } from "../../webhooks/rotate-secret.ts";
import { queueTest } from "../../webhooks/test-endpoint.ts";
import { type AppDeps, replayDeps, signatureDeps } from "../deps.ts";
import { FailureError, fromFailure } from "../errors.ts";
import { signature } from "../plugins/signature.ts";
import { jsonRequest, responses, says } from "../openapi/responses.ts";

const NOT_FOUND: [number, string] = [404, `${says("ENDPOINT_NOT_FOUND")} (also for another account's endpoint)`];
const tags = ["webhooks"];

/**
 * The endpoints API (docs/api.md, docs/webhooks.md): an account's several webhook endpoints, each
 * with its own URL, filters, rate, secret and health, and per endpoint the Test, the secret
 * rotation, the health, the recovery and the replay of the address-watch webhook's routes.
 */
export function webhookEndpointRoutes(deps: AppDeps) {
  const one = "/v1/webhooks/endpoints/:endpoint_id";
  return new Elysia()
    .use(signature(signatureDeps(deps)))
    .post(
      "/v1/webhooks/endpoints",
      async ({ auth, body, set }) => {
        const created = await createEndpoint(deps, auth.accountId, body);
        if (!created.ok) throw fromFailure(created);
        set.status = 201;
        return created.endpoint;
      },
      {
        detail: {
          summary: "Add a webhook endpoint; its whsec_ secret is in this answer (and a rotation's) only",
          tags,
          requestBody: jsonRequest("EndpointCreate"),
          responses: responses({ 201: ["EndpointCreated", "Added, switched on unless enabled: false"] }, [
            [400, "A field error, or a refused URL (private target, not http(s))"],
            [403, `${says("ENDPOINT_LIMIT")} (the plan's max_endpoints; or ${says("IP_NOT_ALLOWED")})`],
            413,
            415,
          ]),
        },
      },
    )
    .get("/v1/webhooks/endpoints", async ({ auth }) => listEndpoints(deps, auth.accountId), {
      detail: { summary: "The account's webhook endpoints, oldest (the default) first; no secrets", tags, responses: responses({ 200: ["EndpointList", "The endpoints"] }) },
    })
    .get(
      one,
      async ({ auth, params }) => {
        const found = await getEndpoint(deps, auth.accountId, params.endpoint_id);
        if (!found.ok) throw fromFailure(found);
        return found.endpoint;
      },
      { detail: { summary: "One webhook endpoint; no secret", tags, responses: responses({ 200: ["Endpoint", "The endpoint"] }, [NOT_FOUND]) } },
    )
    .patch(
      one,
      async ({ auth, params, body }) => {
        const patched = await patchEndpoint(deps, auth.accountId, params.endpoint_id, body);
        if (!patched.ok) throw fromFailure(patched);
        return patched.endpoint;
      },
      {
        detail: {
          summary: "Change only the keys given; `events` keys given replace, the others stay; enabled: true needs a URL",
          tags,
          requestBody: jsonRequest("EndpointPatch"),
          responses: responses({ 200: ["Endpoint", "The endpoint as stored"] }, [[400, "A field error, a refused URL, or url required when enabled"], NOT_FOUND, 413, 415]),
        },
      },
    )
    .delete(
      one,
      async ({ auth, params }) => {
        const removed = await removeEndpoint(deps, auth.accountId, params.endpoint_id);
        if (!removed.ok) throw fromFailure(removed);
        return { endpoint_id: removed.endpoint_id, deleted: removed.deleted };
      },
      {
        detail: {
          summary: "Remove a webhook endpoint; its deliveries still waiting end failed (`endpoint removed`)",
          tags,
          responses: responses({ 200: ["EndpointDeleted", "Removed"] }, [NOT_FOUND, [409, `${says("LAST_ENDPOINT")}`]]),
        },
      },
    )
    .post(
      `${one}/test`,
      async ({ auth, params, body, set }) => {
        const queued = await queueTest({ ...deps, payments: testPayments }, auth.accountId, { endpointId: params.endpoint_id }, body);
        if (!queued.ok) throw fromFailure(queued);
        set.status = 202;
        return { queued: true, delivery_id: queued.deliveryId };
      },
      {
        detail: {
          summary: "Queue a test webhook of one kind on one network to this endpoint (even while it is disabled); answers 202 without waiting",
          tags,
          requestBody: jsonRequest("WebhookTest"),
          responses: responses({ 202: ["TestQueued", "Queued; the receiver's answer is in the delivery's attempts"] }, [[400, "Unknown event or network, or no URL"], NOT_FOUND, 413, 415]),
        },
      },
    )
    .post(
      `${one}/secret/rotate`,
      async ({ auth, params, body }) => {
        const rotated = await rotateSecret(deps, auth.accountId, { endpointId: params.endpoint_id }, body);
        if (!rotated.ok) throw fromFailure(rotated);
        return { endpoint_id: rotated.endpointId, secret: rotated.secret, previous_expires_at: rfc3339(rotated.previousExpiresAt) };
      },
      {
        detail: {
          summary: "Replace the endpoint's secret; the previous one keeps signing beside it for grace_seconds (default a day)",
          tags,
          requestBody: { ...jsonRequest("RotateWebhookSecret"), required: false },
          responses: responses({ 200: ["RotatedEndpointSecret", "The new secret, shown this once"] }, [[400, "grace_seconds not an integer from 0 to 604800, or another field"], NOT_FOUND, 413, 415]),
        },
      },
    )
    .get(
      `${one}/health`,
      async ({ auth, params }) => {
        const endpoint = await findEndpoint(deps.db, auth.accountId, params.endpoint_id);
        if (!endpoint) throw new FailureError("ENDPOINT_NOT_FOUND");
        return (await readEndpointHealth(deps.db, endpoint)).view;
      },
      {
        detail: {
          summary: "The endpoint's health: its current run of failures, last success and error, deliveries pending and failed",
          tags,
          responses: responses({ 200: ["WebhookHealth", "The endpoint's health"] }, [NOT_FOUND]),
        },
      },
    )
    .post(
      `${one}/recover`,
      async ({ auth, params, body }) => {
        const recovered = await recoverEndpoint(deps, auth.accountId, { endpointId: params.endpoint_id }, body);
        if (!recovered.ok) throw fromFailure(recovered);
        return { requeued: recovered.requeued, more: recovered.more };
      },
      {
        detail: {
          summary: "Re-queue the endpoint's failed deliveries queued in [since, until), oldest first, with a fresh retry schedule",
          tags,
          requestBody: jsonRequest("RecoverRequest"),
          responses: responses({ 200: ["RecoverResult", "Re-queued; `more` is true when failed deliveries remain in the range (call again)"] }, [
            [400, "A field error, since in the future, or until not after since"],
            NOT_FOUND,
            413,
            415,
          ]),
        },
      },
    )
    .post(
      `${one}/replay`,
      async ({ auth, params, body, set }) => {
        const replayed = await replayEvents(replayDeps(deps), auth.accountId, { endpointId: params.endpoint_id }, body);
        if (!replayed.ok) throw fromFailure(replayed);
        set.status = 202;
        return { queued: replayed.queued, next_after: replayed.nextAfter };
      },
      {
        detail: {
          summary: "Send stored events again to this endpoint as new deliveries marked X-Webhook-Replay: true; continue with `after` = next_after",
          tags,
          requestBody: jsonRequest("ReplayRequest"),
          responses: responses({ 202: ["ReplayResult", "Queued (up to the replay backlog's room and what the balance pays for; next_after continues)"] }, [
            [400, "A field error, Unknown network: X, Unknown cursor: X, since in the future, until not after since, or the endpoint disabled or without URL"],
            [402, `${says("INSUFFICIENT_CREDITS")} The balance, less what the account's waiting replayed deliveries will cost, pays for none of the events: nothing queued`],
            NOT_FOUND,
            413,
            415,
            [429, `${says("RATE_LIMITED")} (per key, with Retry-After: 1), or ${says("REPLAY_BACKLOG_FULL")} (nothing queued; no Retry-After)`],
          ]),
        },
      },
    );
}
