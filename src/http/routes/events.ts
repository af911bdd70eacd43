import { Elysia, t } from "elysia";
import { findNetwork, unknownNetwork } from "../../config/networks.ts";
import { listEvents } from "../../watch/events.ts";
import { type AppDeps, signatureDeps } from "../deps.ts";
import { badRequest, fromFailure } from "../errors.ts";
import { integerParam, type RawQuery, rawQuery, single } from "../query.ts";
import { signature } from "../plugins/signature.ts";
import { responses } from "../openapi/responses.ts";

/** The `type` values an event listing filters on. */
export const EVENT_TYPES = ["payment", "payout", "other", "block"];

export type EventListQuery = { after: string | null; limit: number; type?: string; network?: string; watchId?: string };

/** Validates the listing's query parameters; every mistake is a 400 naming the parameter. */
export function parseEventListQuery(query: RawQuery, isNetwork: (slug: string) => boolean): EventListQuery {
  const limit = integerParam(query, "limit", { min: 1, max: 1000, fallback: 100 });
  const [after, type, network, watch_id] = ["after", "type", "network", "watch_id"].map((key) => single(query, key));
  if (type !== undefined && !EVENT_TYPES.includes(type)) throw badRequest(`type must be one of ${EVENT_TYPES.join(", ")}`);
  if (network !== undefined && !isNetwork(network)) throw badRequest(unknownNetwork(network));
  if (after === "") throw badRequest("after must not be empty");
  return { after: after ?? null, limit, type, network, watchId: watch_id || undefined };
}

/** GET /v1/address-watch/events: the polling backup of the address-watch webhooks. */
export function eventRoutes(deps: AppDeps) {
  const isNetwork = (slug: string) => findNetwork(deps.config.networks, slug) !== undefined;
  return new Elysia().use(signature(signatureDeps(deps))).get(
    "/v1/address-watch/events",
    async ({ auth, request }) => {
      const page = await listEvents(deps.db, { accountId: auth.accountId, ...parseEventListQuery(rawQuery(request), isNetwork) });
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
