import { Type as T } from "@sinclair/typebox";
import type { Executor } from "../db/database.ts";
import { newWebhookSecret, previousSecretSigns } from "../delivery/signer.ts";
import type { Clock } from "../lib/clock.ts";
import type { InvalidInput, Result } from "../lib/error-codes.ts";
import { rfc3339 } from "../lib/time.ts";
import { checkBody } from "../lib/value-errors.ts";
import type { SecretBox } from "../secrets/secret-box.ts";

// The account's webhook secret, beside the other webhook settings (webhook-settings.ts): rotating
// it with a grace period during which the previous secret signs too, and reading it back for the
// account holder who asked to see it. The delivery loop reads the sealed columns when it claims.

/** How long the previous secret signs beside the new one unless told: a day. */
export const DEFAULT_GRACE_SECONDS = 86_400;

/** The longest grace period a rotation may ask for: a week. */
export const MAX_GRACE_SECONDS = 7 * 86_400;

/** The body of POST /v1/address-watch/webhook/secret/rotate; empty or left out: a day's grace. */
export const RotateSecretSchema = T.Object(
  {
    grace_seconds: T.Optional(
      T.Integer({
        minimum: 0,
        maximum: MAX_GRACE_SECONDS,
        description: `How long the previous secret keeps signing beside the new one, in seconds (default ${DEFAULT_GRACE_SECONDS}); 0 ends it at once`,
      }),
    ),
  },
  { additionalProperties: false },
);

/** A rotation's outcome: the new secret (shown this once) and when the previous one stops signing (ms). */
export type RotatedSecret = { secret: string; previousExpiresAt: number };

export type WebhookSecretDeps = { db: Executor; clock: Clock; box: SecretBox };

/**
 * Replaces the account's webhook secret with a new `whsec_` one. The secret it replaces keeps
 * signing beside it for `grace_seconds` (default a day; 0: not at all); a secret that a previous
 * rotation left signing stops at once, so at most two secrets sign a delivery. One UPDATE, so
 * the current secret moved to the previous slot is the one that was current (two rotations at
 * once cannot both keep the same old secret).
 */
export async function rotateWebhookSecret(deps: WebhookSecretDeps, accountId: string, body: unknown): Promise<Result<RotatedSecret, InvalidInput>> {
  const checked = checkBody(RotateSecretSchema, body ?? {});
  if (!checked.ok) return checked;
  const graceSeconds = checked.body.grace_seconds ?? DEFAULT_GRACE_SECONDS;
  const now = deps.clock.now();
  const secret = newWebhookSecret();
  const expiresAt = now + graceSeconds * 1000;
  await deps.db
    .updateTable("accounts")
    .set((eb) => ({
      webhook_secret_enc: deps.box.seal(secret),
      webhook_previous_secret_enc: graceSeconds > 0 ? eb.ref("webhook_secret_enc") : null,
      webhook_previous_secret_expires_at: graceSeconds > 0 ? expiresAt : null,
      updated_at: now,
    }))
    .where("id", "=", accountId)
    .execute();
  return { ok: true, secret, previousExpiresAt: expiresAt };
}

/** The answer of a rotation as the API and the CLI show it. */
export function rotatedView(r: RotatedSecret): { webhook_secret: string; previous_expires_at: string } {
  return { webhook_secret: r.secret, previous_expires_at: rfc3339(r.previousExpiresAt) };
}

/** The account's current secret, opened, and when a rotated-out one stops signing (null: none signs now). */
export type CurrentSecret = { secret: string; previousExpiresAt: number | null };

/** When the account's rotated-out secret stops signing, without opening either secret; null when none signs now. */
export async function previousSecretExpiry(deps: Omit<WebhookSecretDeps, "box">, accountId: string): Promise<number | null> {
  return (await readSecretRow(deps, accountId)).previousExpiresAt;
}

/** Opens the account's current webhook secret, for an account holder who asked to see it. */
export async function readWebhookSecret(deps: WebhookSecretDeps, accountId: string): Promise<CurrentSecret> {
  const row = await readSecretRow(deps, accountId);
  return { secret: deps.box.open(row.sealed), previousExpiresAt: row.previousExpiresAt };
}

async function readSecretRow(deps: Omit<WebhookSecretDeps, "box">, accountId: string) {
  const row = await deps.db
    .selectFrom("accounts")
    .select(["webhook_secret_enc", "webhook_previous_secret_enc", "webhook_previous_secret_expires_at"])
    .where("id", "=", accountId)
    .executeTakeFirstOrThrow();
  const expiresAt = row.webhook_previous_secret_expires_at === null ? null : Number(row.webhook_previous_secret_expires_at);
  const signs = previousSecretSigns(row.webhook_previous_secret_enc, expiresAt, deps.clock.now());
  return { sealed: row.webhook_secret_enc, previousExpiresAt: signs ? expiresAt : null };
}
