import type { Db } from "../db/database.ts";
import { type Failure, fail, type InvalidInput, type Result } from "../lib/error-codes.ts";
import { type EndpointSecretDeps, parseRotation, type RotatedSecret, rotateEndpointSecret } from "./endpoint-secret.ts";
import { type EndpointRef, endpointOf } from "./endpoints.ts";

// Rotating an endpoint's secret (docs/webhooks.md): POST /v1/address-watch/webhook/secret/rotate
// (and `chainwatch webhook rotate-secret`, the cabinet's Rotate) for the default endpoint,
// POST /v1/webhooks/endpoints/{id}/secret/rotate (and `chainwatch webhook endpoints rotate`) for any.

export type RotateDeps = Omit<EndpointSecretDeps, "db"> & { db: Db };

/** Gives the endpoint a new `whsec_` secret, shown in the answer only; the previous one signs beside it for the body's grace period. */
export async function rotateSecret(
  deps: RotateDeps,
  accountId: string,
  ref: EndpointRef,
  body: unknown,
): Promise<Result<RotatedSecret & { endpointId: string }, InvalidInput | Failure<"ENDPOINT_NOT_FOUND">>> {
  const endpoint = await endpointOf(deps.db, accountId, ref);
  if (!endpoint) return fail("ENDPOINT_NOT_FOUND");
  const parsed = parseRotation(body);
  if (!parsed.ok) return parsed;
  const rotated = await rotateEndpointSecret(deps, endpoint.id, parsed.graceSeconds);
  return { ok: true, ...rotated, endpointId: endpoint.id };
}
