import { Type as T } from "@sinclair/typebox";
import type { Config } from "../config/schema.ts";
import type { Db, Executor } from "../db/database.ts";
import type { Clock } from "../lib/clock.ts";
import { type InvalidInput, invalidInput } from "../lib/error-codes.ts";
import { checkBody } from "../lib/value-errors.ts";
import { checkWebhookTarget, type Resolver, type TargetFailure } from "../net/target-guard.ts";
import { MAX_URL_LENGTH } from "../webhooks/settings.ts";

/** GET/PUT /v1/payments/settings body: where payment-order webhooks go; null: to the webhook endpoints that take them. */
export const PaymentSettingsSchema = T.Object({ webhook_url: T.Union([T.String(), T.Null()]) }, { additionalProperties: false });

export type PaymentSettings = { webhook_url: string | null };

export type SettingsOutcome = { ok: true; settings: PaymentSettings } | InvalidInput | TargetFailure;

/** The account's payment webhook settings. */
export async function readPaymentSettings(db: Executor, accountId: string): Promise<PaymentSettings> {
  const row = await db.selectFrom("accounts").select("payments_webhook_url").where("id", "=", accountId).executeTakeFirstOrThrow();
  return { webhook_url: row.payments_webhook_url };
}

/**
 * Validates and stores a PUT body. The URL gets the same checks as a webhook endpoint's
 * (absolute http(s), no credentials, public after DNS unless private targets are allowed); the
 * DNS lookup happens before the write, never inside a transaction.
 */
export async function updatePaymentSettings(
  deps: { db: Db; clock: Clock; resolveHost: Resolver; config: Pick<Config, "delivery"> },
  accountId: string,
  body: unknown,
): Promise<SettingsOutcome> {
  const checked = checkBody(PaymentSettingsSchema, body);
  if (!checked.ok) return checked;
  const url = checked.body.webhook_url;
  if (url !== null) {
    if (url.length > MAX_URL_LENGTH) return fail(`webhook_url must be at most ${MAX_URL_LENGTH} characters`);
    const target = await checkWebhookTarget(url, { allowPrivate: deps.config.delivery.allow_private_targets, resolve: deps.resolveHost, field: "webhook_url" });
    if (!target.ok) return target;
  }
  await deps.db
    .updateTable("accounts")
    .set({ payments_webhook_url: url, updated_at: deps.clock.now() })
    .where("id", "=", accountId)
    .execute();
  return { ok: true, settings: { webhook_url: url } };
}

const fail = invalidInput;
