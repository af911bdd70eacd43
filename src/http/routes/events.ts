import { Elysia, t } from "elysia";
import { rawQuery } from "../../net/request-target.ts";
import { listEventPage } from "../../watch/list-events.ts";
import { type AppDeps, signatureDeps } from "../deps.ts";
import { fromFailure } from "../errors.ts";
import { signature } from "../plugins/signature.ts";
import { responses } from "../openapi/responses.ts";

/** GET /v1/address-watch/events: the polling backup of the address-watch webhooks. */
export function eventRoutes(deps: AppDeps) {
  return new Elysia().use(signature(signatureDeps(deps))).get(
    "/v1/address-watch/events",
    async ({ auth, request }) => {
      const page = await listEventPage(deps, auth.accountId, rawQuery(request));
      if (!page.ok) throw fromFailure(page);
      // Stored bodies are spliced in as they are, so each item is byte for byte its webhook body.
      return new Response(`{"events":[${page.bodies.join(",")}],"next_after":${JSON.stringify(page.nextAfter)}}`, {
        headers: { "content-type": "application/json;charset=utf-8" },
      });
    },
    {
      query: t.Object({
        after: t.Optional(t.String({ description: "An event id; only later events are listed" })),
        limit: t.Optional(t.String({ description: "1..1000, default 100" })),
        type: t.Optional(t.String({ description: "payment · payout · other · block" })),
        network: t.Optional(t.String({ description: "A network slug" })),
        watch_id: t.Optional(t.String({ description: "Only this watch's events" })),
      }),
      detail: {
        summary: "Address-watch events, oldest first, the same bodies as the webhooks",
        tags: ["address-watch"],
        responses: responses({ 200: ["EventList", "A page of events"] }, [[400, "A bad limit or type, Unknown network: X, or Unknown cursor: X"]]),
      },
    },
  );
}
