import { type Static, type TSchema, Type as T } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { Elysia } from "elysia";
import { findNetwork, unknownNetwork } from "../../config/networks.ts";
import { PrintableString } from "../../lib/printable.ts";
import { describeValueError } from "../../lib/value-errors.ts";
import { normalizeAddress } from "../../watch/address.ts";
import { addWatch, deleteWatch, listWatches, type WatchView, watchView } from "../../watch/watches.ts";
import { type AppDeps, signatureDeps } from "../deps.ts";
import { FailureError, badRequest, fromFailure } from "../errors.ts";
import { signature } from "../plugins/signature.ts";
import { jsonRequest, responses } from "../openapi/responses.ts";

/** POST /v1/address-watch/addresses body. */
export const AddWatchSchema = T.Object(
  {
    // Config caps slugs at 32 characters; the cap keeps the echoed "Unknown network" small.
    network_slug: T.String({ minLength: 1, maxLength: 64 }),
    address: PrintableString(),
  },
  { additionalProperties: false },
);

/** DELETE /v1/address-watch/addresses body (signed like any other). */
export const DeleteWatchSchema = T.Object({ watch_id: T.String({ minLength: 1 }) }, { additionalProperties: false });

/**
 * Validates a body against its schema, throwing a 400 that names the first bad field.
 * Elysia's own body validation is not used: it silently drops unknown fields and reports a
 * missing field as a wrong type.
 */
function parseBody<S extends TSchema>(schema: S, body: unknown): Static<S> {
  const first = Value.Errors(schema, body).First();
  if (first) throw badRequest(describeValueError(first));
  return body as Static<S>;
}

/**
 * Adds a watch from a POST /v1/address-watch/addresses body: the one place its rules and messages
 * live, used by the signed API and the cabinet alike. Throws the API's FailureError.
 */
export async function addWatchRequest(deps: AppDeps, accountId: string, body: unknown): Promise<{ created: boolean; watch: WatchView }> {
  const input = parseBody(AddWatchSchema, body);
  const network = findNetwork(deps.config.networks, input.network_slug);
  if (!network) throw badRequest(unknownNetwork(input.network_slug));
  const address = normalizeAddress(network.family, input.address);
  if (address === null) throw badRequest(`Invalid address for network ${input.network_slug}`);
  const outcome = await addWatch(deps.db, { accountId, network: input.network_slug, address, now: deps.clock.now() });
  if (!outcome.ok) throw fromFailure(outcome);
  if (outcome.created) deps.snapshots.invalidate(accountId);
  return { created: outcome.created, watch: watchView(outcome.watch) };
}

/** Deletes a watch from a DELETE /v1/address-watch/addresses body (API and cabinet); another account's watch is not found. */
export async function deleteWatchRequest(deps: AppDeps, accountId: string, body: unknown): Promise<{ watch_id: string; deleted: true }> {
  const input = parseBody(DeleteWatchSchema, body);
  if (!(await deleteWatch(deps.db, accountId, input.watch_id))) throw new FailureError("WATCH_NOT_FOUND");
  deps.snapshots.invalidate(accountId);
  return { watch_id: input.watch_id, deleted: true };
}

/** POST, GET and DELETE /v1/address-watch/addresses. */
export function watchRoutes(deps: AppDeps) {
  return new Elysia()
    .use(signature(signatureDeps(deps)))
    .post(
      "/v1/address-watch/addresses",
      async ({ auth, body, set }) => {
        const outcome = await addWatchRequest(deps, auth.accountId, body);
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
            [[400, "Unknown network: X, Invalid address for network X, or a field error"], [403, "Address slot limit reached. (or IP address not allowed.)"], 413, 415],
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
      async ({ auth, body }) => deleteWatchRequest(deps, auth.accountId, body),
      {
        detail: {
          summary: "Stop watching an address, freeing its slot",
          tags: ["address-watch"],
          requestBody: jsonRequest("DeleteWatch"),
          responses: responses({ 200: ["WatchDeleted", "Deleted"] }, [400, [404, "Watch not found."], 413, 415]),
        },
      },
    );
}
