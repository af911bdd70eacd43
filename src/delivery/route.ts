import type { Delivery } from "../db/schema.ts";
import { type Failure, fail } from "../lib/error-codes.ts";

// Where a delivery goes, decided from its account as it is at claim and send time: pure, read by
// the claim (what waits, what is paced), the send and the Test button.

/** The account columns that decide where and how a delivery is sent, read when it is claimed. */
export type AccountRoute = {
  webhook_url: string | null;
  webhook_enabled: number;
  payments_webhook_url: string | null;
  webhook_secret_enc: string;
  /** The secret a rotation replaced and when it stops signing beside the current one (null: none). */
  webhook_previous_secret_enc: string | null;
  webhook_previous_secret_expires_at: number | null;
};

export type TargetChoice = { ok: true; url: string } | Failure<"NO_WEBHOOK_URL" | "WEBHOOK_DISABLED">;

/**
 * Where a delivery goes, decided from the account as it is now (docs/webhooks.md). Address-watch events
 * need the webhook enabled; payment orders prefer the payments URL, else the enabled webhook;
 * tests follow the route of the kind they imitate, except that an address-watch test also goes to
 * a disabled webhook, so a client can check a receiver before switching it on.
 */
export function chooseTarget(
  d: Pick<Delivery, "kind" | "event_type">,
  a: Pick<AccountRoute, "webhook_url" | "webhook_enabled" | "payments_webhook_url">,
): TargetChoice {
  const enabledUrl = a.webhook_enabled === 1 ? a.webhook_url : null;
  if (d.kind === "payment" || (d.kind === "test" && d.event_type === "payment_order")) {
    const url = a.payments_webhook_url ?? enabledUrl;
    if (url) return { ok: true, url };
    return fail(a.webhook_url ? "WEBHOOK_DISABLED" : "NO_WEBHOOK_URL");
  }
  if (d.kind === "test") return a.webhook_url ? { ok: true, url: a.webhook_url } : fail("NO_WEBHOOK_URL");
  if (!a.webhook_url) return fail("NO_WEBHOOK_URL");
  if (a.webhook_enabled !== 1) return fail("WEBHOOK_DISABLED");
  return { ok: true, url: a.webhook_url };
}

/**
 * Whether a delivery waits for its account's webhook to be switched on again: it would go to the
 * address-watch URL, which is set but disabled. It is not attempted meanwhile (claim.ts parks it),
 * so an endpoint switched off never burns the attempts of what is queued for it.
 */
export function waitsForWebhook(
  d: Pick<Delivery, "kind" | "event_type">,
  a: Pick<AccountRoute, "webhook_url" | "webhook_enabled" | "payments_webhook_url">,
): boolean {
  if (a.webhook_enabled === 1) return false;
  const target = chooseTarget(d, a);
  return !target.ok && target.code === "WEBHOOK_DISABLED";
}
