import { Elysia } from "elysia";
import { unwatchAddress } from "../../watch/unwatch-address.ts";
import { watchAddress } from "../../watch/watch-address.ts";
import { unwatchAddresses, watchAddresses } from "../../watch/watch-batch.ts";
import { failureMessage } from "../../lib/failures.ts";
import { listWatches, watchView } from "../../watch/watches.ts";
import { type AppDeps, signatureDeps } from "../deps.ts";
import { fromFailure } from "../errors.ts";
import { signature } from "../plugins/signature.ts";
import { jsonRequest, responses, says } from "../openapi/responses.ts";

/** POST, GET and DELETE /v1/address-watch/addresses, and POST and DELETE of its batch. */
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
    )
    .post(
      "/v1/address-watch/addresses/batch",
      async ({ auth, body }) => {
        const outcome = await watchAddresses(deps, auth.accountId, body);
        if (!outcome.ok) throw fromFailure(outcome);
        return { results: outcome.results.map((r) => (r.ok ? r.watch : { error: failureMessage(r) })) };
      },
      {
        detail: {
          summary: "Watch up to 1,000 addresses, each answered in order as the single add answers it (slots taken item by item)",
          tags: ["address-watch"],
          requestBody: jsonRequest("AddWatchBatch"),
          responses: responses({ 200: ["WatchBatchResult", "One answer per item, in order"] }, [[400, "A field error (the list empty, over 1,000 items, or an item malformed): nothing written"], 413, 415]),
        },
      },
    )
    .delete(
      "/v1/address-watch/addresses/batch",
      async ({ auth, body }) => {
        const outcome = await unwatchAddresses(deps, auth.accountId, body);
        if (!outcome.ok) throw fromFailure(outcome);
        return { results: outcome.results.map((r) => (r.ok ? { watch_id: r.watchId, deleted: true } : { error: failureMessage(r) })) };
      },
      {
        detail: {
          summary: "Stop watching up to 1,000 watches, each id answered in order as the single delete answers it",
          tags: ["address-watch"],
          requestBody: jsonRequest("DeleteWatchBatch"),
          responses: responses({ 200: ["WatchDeleteBatchResult", "One answer per id, in order"] }, [[400, "A field error (the list empty, over 1,000 ids, or an id not a string): nothing deleted"], 413, 415]),
        },
      },
    );
}
