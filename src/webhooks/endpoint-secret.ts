import { Type as T } from "@sinclair/typebox";
import type { Executor } from "../db/database.ts";
import { newWebhookSecret, previousSecretSigns } from "../delivery/signer.ts";
import type { Clock } from "../lib/clock.ts";
import type { InvalidInput, Result } from "../lib/error-codes.ts";
import { rfc3339 } from "../lib/time.ts";
import { checkBody } from "../lib/value-errors.ts";
import type { SecretBox } from "../secrets/secret-box.ts";

// An endpoint's signing secret (docs/webhooks.md): made with the endpoint, rotated with a grace
// period during which the previous secret signs too, and read back for the account holder who
// asked to see it. Sealed under the master key in `webhook_endpoints`; the delivery claim reads the
// sealed columns beside the endpoint's URL.

/** How long the previous secret signs beside the new one unless told: a day. */
export const DEFAULT_GRACE_SECONDS = 86_400;

/** The longest grace period a rotation may ask for: a week. */
export const MAX_GRACE_SECONDS = 7 * 86_400;

/** The body of a rotation (POST …/secret/rotate); empty or left out: a day's grace. */
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

export type EndpointSecretDeps = { db: Executor; clock: Clock; box: SecretBox };

/** Checks a rotation body: the grace period in seconds it asks for (a day when left out). */
export function parseRotation(body: unknown): Result<{ graceSeconds: number }, InvalidInput> {
  const checked = checkBody(RotateSecretSchema, body ?? {});
  if (!checked.ok) return checked;
  return { ok: true, graceSeconds: checked.body.grace_seconds ?? DEFAULT_GRACE_SECONDS };
}

/**
 * Replaces the endpoint's secret with a new `whsec_` one, in the caller's transaction. The secret it
 * replaces keeps signing beside it for `graceSeconds` (0: not at all); a secret that a previous
 * rotation left signing stops at once, so at most two secrets sign a delivery. One UPDATE, so the
 * current secret moved to the previous slot is the one that was current (two rotations at once
 * cannot both keep the same old secret).
 */
export async function rotateEndpointSecret(deps: EndpointSecretDeps, endpointId: string, graceSeconds: number): Promise<RotatedSecret> {
  const now = deps.clock.now();
  const secret = newWebhookSecret();
  const expiresAt = now + graceSeconds * 1000;
  await deps.db
    .updateTable("webhook_endpoints")
    .set((eb) => ({
      secret_enc: deps.box.seal(secret),
      previous_secret_enc: graceSeconds > 0 ? eb.ref("secret_enc") : null,
      previous_secret_expires_at: graceSeconds > 0 ? expiresAt : null,
      updated_at: now,
    }))
    .where("id", "=", endpointId)
    .execute();
  return { secret, previousExpiresAt: expiresAt };
}

/** The answer of a rotation as the API and the CLI show it. */
export function rotatedView(r: RotatedSecret): { webhook_secret: string; previous_expires_at: string } {
  return { webhook_secret: r.secret, previous_expires_at: rfc3339(r.previousExpiresAt) };
}

/** An endpoint's current secret, opened, and when a rotated-out one stops signing (null: none signs now). */
export type CurrentSecret = { secret: string; previousExpiresAt: number | null };

/** The sealed secrets of an endpoint, as the signer takes them. */
export type SealedSecrets = { sealed: string; previousSealed: string | null; previousExpiresAt: number | null };

/** An endpoint's sealed secrets (current, and the rotated-out one with its expiry), unopened. */
export async function sealedSecrets(db: Executor, endpointId: string): Promise<SealedSecrets> {
  const row = await db
    .selectFrom("webhook_endpoints")
    .select(["secret_enc", "previous_secret_enc", "previous_secret_expires_at"])
    .where("id", "=", endpointId)
    .executeTakeFirstOrThrow();
  const expiresAt = row.previous_secret_expires_at === null ? null : Number(row.previous_secret_expires_at);
  return { sealed: row.secret_enc, previousSealed: row.previous_secret_enc, previousExpiresAt: expiresAt };
}

/** When the endpoint's rotated-out secret stops signing, without opening either secret; null when none signs now. */
export async function previousSecretExpiry(deps: Omit<EndpointSecretDeps, "box">, endpointId: string): Promise<number | null> {
  const s = await sealedSecrets(deps.db, endpointId);
  return previousSecretSigns(s.previousSealed, s.previousExpiresAt, deps.clock.now()) ? s.previousExpiresAt : null;
}

/** Opens the endpoint's current secret, for an account holder (or operator) who asked to see it. */
export async function readEndpointSecret(deps: EndpointSecretDeps, endpointId: string): Promise<CurrentSecret> {
  const s = await sealedSecrets(deps.db, endpointId);
  const signs = previousSecretSigns(s.previousSealed, s.previousExpiresAt, deps.clock.now());
  return { secret: deps.box.open(s.sealed), previousExpiresAt: signs ? s.previousExpiresAt : null };
}
