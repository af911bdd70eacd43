import { type Html, html } from "../../lib/html.ts";

/**
 * The banner of an account whose deliveries wait because its credits cannot pay for them (the
 * overview and the webhook page): how many wait, the balance, and that adding credits sends them.
 * Nothing while none waits.
 */
export function creditsHeldBanner(held: number, balance: number): Html | "" {
  if (held === 0) return "";
  const deliveries = held === 1 ? "1 webhook delivery waits" : `${held} webhook deliveries wait`;
  return html`<div class="alert err" id="credits-held"><strong>Deliveries held: out of credits.</strong> ${deliveries} because the balance (${balance} credits) cannot pay for ${held === 1 ? "it" : "them"}. Nothing is lost: once the operator adds credits, held deliveries go out.</div>`;
}
