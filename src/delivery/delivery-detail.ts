import type { Db } from "../db/database.ts";
import { type Failure, fail, type Result } from "../lib/error-codes.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import { attemptsOf, deliveryView, getDelivery } from "./admin.ts";
import { isRetraction } from "./delivery-log.ts";
import { previousSecretSigns, webhookHeaders, webhookKey } from "./signer.ts";

// One delivery as its account holder inspects it (the cabinet's delivery page): what was sent,
// how it was signed, and every attempt.

export type DeliveryDetailDeps = { db: Db; box: SecretBox; clock: { now(): number }; userAgent: string };

export type DeliveryDetail = {
  delivery: ReturnType<typeof deliveryView> & { attempt_log: NonNullable<ReturnType<typeof deliveryView>["attempt_log"]> };
  /** The exact body bytes, the same on every attempt. */
  body: string;
  retraction: boolean;
  /**
   * The headers of its last attempt (`attempt`), or of an attempt made now when there was none
   * (`attempt` null), as the sender builds them (signer.ts), signed with the account's webhook
   * secret as it is now (and a rotated-out one, had its grace period not ended by then). No secret is part of them.
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
  const account = await deps.db
    .selectFrom("accounts")
    .select(["webhook_secret_enc", "webhook_previous_secret_enc", "webhook_previous_secret_expires_at"])
    .where("id", "=", accountId)
    .executeTakeFirstOrThrow();
  const last = log.at(-1);
  const signedAt = last ? last.started_at : deps.clock.now();
  const previous = account.webhook_previous_secret_enc;
  const headers = webhookHeaders({
    id: d.id,
    body: d.body,
    // As send.ts signs an attempt: the second it started.
    timestampSec: Math.floor(signedAt / 1000),
    key: webhookKey(deps.box.open(account.webhook_secret_enc)),
    // As the loop does: a rotated-out secret signs too while its grace period lasts.
    previousKey: previousSecretSigns(previous, account.webhook_previous_secret_expires_at, signedAt) ? webhookKey(deps.box.open(previous)) : null,
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
