import { Elysia } from "elysia";
import { replayEvents } from "../../webhooks/replay.ts";
import { type AppDeps, replayDeps, signatureDeps } from "../deps.ts";
import { fromFailure } from "../errors.ts";
import { signature } from "../plugins/signature.ts";
import { jsonRequest, responses, says } from "../openapi/responses.ts";

/** POST /v1/address-watch/events/replay: stored events sent again as new deliveries, a page at a time. */
export function eventReplayRoutes(deps: AppDeps) {
  return new Elysia().use(signature(signatureDeps(deps))).post(
    "/v1/address-watch/events/replay",
    async ({ auth, body, set }) => {
      const replayed = await replayEvents(replayDeps(deps), auth.accountId, "default", body);
      if (!replayed.ok) throw fromFailure(replayed);
      set.status = 202;
      return { queued: replayed.queued, next_after: replayed.nextAfter };
    },
    {
      detail: {
        summary: "Send stored events again as new deliveries marked X-Webhook-Replay: true; continue with `after` = next_after",
        tags: ["address-watch"],
        requestBody: jsonRequest("ReplayRequest"),
        responses: responses({ 202: ["ReplayResult", "Queued (up to the replay backlog's room and what the balance pays for; next_after continues); the receiver's answers are in the deliveries' attempts"] }, [
          [400, "A field error, Unknown network: X, Unknown cursor: X, since in the future, until not after since, or no enabled webhook"],
          [402, `${says("INSUFFICIENT_CREDITS")} The balance, less what the account's waiting replayed deliveries will cost, pays for none of the events: nothing queued`],
          413,
          415,
          [
            429,
            `${says("RATE_LIMITED")} (per key, with Retry-After: 1), or ${says("REPLAY_BACKLOG_FULL")} (delivery.max_replay_pending replayed deliveries already wait: nothing queued; no Retry-After)`,
          ],
        ]),
      },
    },
  );
}
