import type { Db } from "../db/database.ts";
import { attemptsOf, deliveryView, getDelivery } from "../delivery/admin.ts";
import { isRetraction } from "../delivery/delivery-log.ts";
import { previousSecretSigns, webhookHeaders, webhookKey } from "../delivery/signer.ts";
import { type Failure, fail, type Result } from "../lib/error-codes.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import { sealedSecrets } from "./endpoint-secret.ts";
import { defaultEndpoint, findEndpoint } from "./endpoints.ts";

// One delivery as its account holder inspects it (the cabinet's delivery page): what was sent,
// how it was signed (by its endpoint's secret), and every attempt.

export type DeliveryDetailDeps = { db: Db; box: SecretBox; clock: { now(): number }; userAgent: string };

export type DeliveryDetail = {
  delivery: ReturnType<typeof deliveryView> & { attempt_log: NonNullable<ReturnType<typeof deliveryView>["attempt_log"]> };
  /** The exact body bytes, the same on every attempt. */
  body: string;
  retraction: boolean;
  /**
   * The headers of its last attempt (`attempt`), or of an attempt made now when there was none
   * (`attempt` null), as the sender builds them (signer.ts), signed with its endpoint's secret as it
   * is now (the default endpoint's for the payments URL; and a rotated-out one, had its grace period
   * not ended by then). No secret is part of them.
   */
  headers: { attempt: number | null; values: [string, string][] };
};

/** One of the account's deliveries with its body, headers and attempt log; another account's is not found. */
export async function deliveryDetail(
  deps: DeliveryDetailDeps,
  accountId: string,
  deliveryId: string,
): Promise<Result<{ detail: DeliveryDetail }, Failure<"DELIVERY_NOT_FOUND">>> {
  const d = await getDelivery(deps.db, deliveryId);
  if (!d || d.account_id !== accountId) return fail("DELIVERY_NOT_FOUND");
  const log = await attemptsOf(deps.db, [d.id]);
  const view = deliveryView(d, log.length, log);
  // A removed endpoint's secret is gone with it: the default endpoint's shows the headers' shape.
  const own = d.endpoint_id === null ? undefined : await findEndpoint(deps.db, accountId, d.endpoint_id);
  const secrets = await sealedSecrets(deps.db, (own ?? (await defaultEndpoint(deps.db, accountId))).id);
  const last = log.at(-1);
  const signedAt = last ? last.started_at : deps.clock.now();
  const previous = secrets.previousSealed;
  const headers = webhookHeaders({
    id: d.id,
    body: d.body,
    // As send.ts signs an attempt: the second it started.
    timestampSec: Math.floor(signedAt / 1000),
    key: webhookKey(deps.box.open(secrets.sealed)),
    // As the loop does: a rotated-out secret signs too while its grace period lasts.
    previousKey: previousSecretSigns(previous, secrets.previousExpiresAt, signedAt) ? webhookKey(deps.box.open(previous)) : null,
    userAgent: deps.userAgent,
    test: d.kind === "test",
    replay: d.replay === 1,
  });
  return {
    ok: true,
    detail: {
      delivery: { ...view, attempt_log: view.attempt_log ?? [] },
      body: d.body,
      retraction: isRetraction(d),
      headers: { attempt: last ? log.length : null, values: Object.entries(headers) },
    },
  };
}
