import { Elysia } from "elysia";
import { unwatchAddress } from "../../watch/unwatch-address.ts";
import { watchAddress } from "../../watch/watch-address.ts";
import { listWatches, watchView } from "../../watch/watches.ts";
import { type AppDeps, signatureDeps } from "../deps.ts";
import { fromFailure } from "../errors.ts";
import { signature } from "../plugins/signature.ts";
import { jsonRequest, responses, says } from "../openapi/responses.ts";

/** POST, GET and DELETE /v1/address-watch/addresses. */
export function watchRoutes(deps: AppDeps) {
  return new Elysia()
    .use(signature(signatureDeps(deps)))
    .post(
      "/v1/address-watch/addresses",
      async ({ auth, body, set }) => {
        const outcome = await watchAddress(deps, auth.accountId, body);
        if (!outcome.ok) throw fromFailure(outcome);
        set.status = outcome.created ? 201 : 200;
        return outcome.watch;
      },
      {
        detail: {
          summary: "Watch an address (idempotent: the same network and address again answers 200 with the same record)",
          tags: ["address-watch"],
          requestBody: jsonRequest("AddWatch"),
          responses: responses(
            { 201: ["Watch", "Watched"], 200: ["Watch", "Already watched: the same record"] },
            [[400, "Unknown network: X, Invalid address for network X, or a field error"], [403, `${says("SLOT_LIMIT")} (or ${says("IP_NOT_ALLOWED")})`], 413, 415],
          ),
        },
      },
    )
    .get(
      "/v1/address-watch/addresses",
      async ({ auth }) => ({ addresses: (await listWatches(deps.db, auth.accountId)).map(watchView) }),
      { detail: { summary: "Watched addresses, oldest first", tags: ["address-watch"], responses: responses({ 200: ["WatchList", "The watches"] }) } },
    )
    .delete(
      "/v1/address-watch/addresses",
      async ({ auth, body }) => {
        const outcome = await unwatchAddress(deps, auth.accountId, body);
        if (!outcome.ok) throw fromFailure(outcome);
        return { watch_id: outcome.watchId, deleted: true };
      },
      {
        detail: {
          summary: "Stop watching an address, freeing its slot",
          tags: ["address-watch"],
          requestBody: jsonRequest("DeleteWatch"),
          responses: responses({ 200: ["WatchDeleted", "Deleted"] }, [400, [404, says("WATCH_NOT_FOUND")], 413, 415]),
        },
      },
    );
}
