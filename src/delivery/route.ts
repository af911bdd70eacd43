import type { Delivery } from "../db/schema.ts";
import { type Failure, fail } from "../lib/error-codes.ts";

// Where a delivery goes, decided from its endpoint as it is at claim and send time: pure, read by
// the claim (what waits, what is paced) and the send. Which endpoints a webhook goes to is decided
// when it is queued (webhooks/fan-out.ts); this only reads the one a row names.

/** What the claim reads of a row's endpoint (or, for a row with none, of the account's payments URL and default endpoint). */
export type EndpointRoute = {
  /** The row's endpoint; null: a payment-order webhook to the account's payments URL. */
  endpointId: string | null;
  /** The endpoint's URL, or for a row without endpoint the account's payments URL; null: none set. */
  url: string | null;
  /** Whether the endpoint is switched on (a payments URL always is). */
  enabled: boolean;
  /** The secret that signs (sealed): the endpoint's, or the account's default endpoint's for a payments URL; null once the endpoint is gone. */
  secretEnc: string | null;
  /** The secret a rotation replaced and when it stops signing beside the current one (null: none). */
  previousSecretEnc: string | null;
  previousSecretExpiresAt: number | null;
};

export type TargetChoice = { ok: true; url: string } | Failure<"NO_WEBHOOK_URL" | "WEBHOOK_DISABLED">;

/**
 * Where a delivery goes, decided from its endpoint as it is now (docs/webhooks.md): the endpoint's
 * URL while it is enabled; a test goes there even while it is disabled, so a receiver can be
 * checked before it is switched on; a row without endpoint goes to the account's payments URL.
 * An endpoint removed meanwhile has no URL.
 */
export function chooseTarget(d: Pick<Delivery, "kind">, r: Pick<EndpointRoute, "endpointId" | "url" | "enabled" | "secretEnc">): TargetChoice {
  if (!r.url || r.secretEnc === null) return fail("NO_WEBHOOK_URL");
  if (r.endpointId !== null && !r.enabled && d.kind !== "test") return fail("WEBHOOK_DISABLED");
  return { ok: true, url: r.url };
}

/**
 * Whether a delivery waits for its endpoint to be switched on again: the endpoint has a URL but is
 * disabled. It is not attempted meanwhile (claim.ts parks it), so an endpoint switched off never
 * burns the attempts of what is queued for it.
 */
export function waitsForEndpoint(d: Pick<Delivery, "kind">, r: Pick<EndpointRoute, "endpointId" | "url" | "enabled" | "secretEnc">): boolean {
  if (r.enabled) return false;
  const target = chooseTarget(d, r);
  return !target.ok && target.code === "WEBHOOK_DISABLED";
}

/** Whether a row goes to a webhook endpoint (whose rate limit and health it counts toward), not to a payments URL. */
export function goesToEndpoint(r: Pick<EndpointRoute, "endpointId">): r is EndpointRoute & { endpointId: string } {
  return r.endpointId !== null;
}
