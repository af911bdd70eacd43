import { MAX_DELIVERY_RPS } from "../../config/schema.ts";
import { TEST_EVENTS } from "../../webhook-test/sample-payloads.ts";
import { readWebhookHealth, type WebhookHealth } from "../../delivery/webhook-health.ts";
import { readWebhook } from "../../watch/update-webhook.ts";
import { type Html, html, raw } from "../../lib/html.ts";
import { rfc3339 } from "../../lib/time.ts";
import { csrfField } from "../layout.ts";
import { cabinetPage, networkSlugs, options, type PageContext, when } from "../view.ts";

const KINDS = [
  ["payment", "Incoming (payment)"],
  ["payout", "Outgoing (payout)"],
  ["block", "New blocks"],
] as const;

/** A form's whole number as a number; anything else as typed, for the API's check to name. */
const wholeNumber = (typed: string) => (/^\d{1,9}$/.test(typed.trim()) ? Number(typed.trim()) : typed);

/**
 * The PUT /v1/address-watch/webhook body a submitted settings form stands for: every filter key
 * given (an unchecked kind is off; no network ticked = all networks). `min_confirmations` and
 * `max_rps` are sent when the form had the field, non-blank (else the stored value stays).
 */
export function webhookBodyFromForm(form: URLSearchParams): Record<string, unknown> {
  const url = (form.get("url") ?? "").trim();
  const events: Record<string, unknown> = {};
  for (const [kind] of KINDS) {
    events[kind] = form.has(kind);
    events[`${kind}_networks`] = form.getAll(`${kind}_networks`);
  }
  const minConf = form.get("min_confirmations");
  if (minConf !== null) events.min_confirmations = wholeNumber(minConf);
  const body: Record<string, unknown> = { url: url === "" ? null : url, enabled: form.has("enabled"), events };
  const maxRps = form.get("max_rps");
  if (maxRps !== null && maxRps.trim() !== "") body.delivery = { max_rps: wholeNumber(maxRps) };
  return body;
}

const checked = (on: boolean) => raw(on ? " checked" : "");

/**
 * The endpoint's trouble, above the settings: failing since when, or switched off after a run of
 * failures, with the last error. Nothing while it is healthy or switched off by the account holder.
 */
export function healthBanner(h: WebhookHealth): Html | "" {
  const { view } = h;
  const since = view.failing_since === null ? null : rfc3339(view.failing_since * 1000);
  const error = view.last_error === null ? "" : html` Last error: <code>${view.last_error.error}</code>.`;
  if (view.state === "failing")
    return html`<div class="alert err" id="endpoint-health"><strong>Deliveries are failing</strong> since ${when(since)}.${error} ${view.pending} waiting.</div>`;
  if (view.state === "disabled" && h.disabledAt !== null)
    return html`<div class="alert err" id="endpoint-health"><strong>Webhook disabled</strong> on ${when(rfc3339(h.disabledAt))}: every attempt failed since ${when(since)}.${error} Events are still stored and listed; tick Enabled and save to resume deliveries (${view.pending} waiting).</div>`;
  return "";
}

/** The address-watch webhook: URL, enabled, filters, egress IPs, and the Test button. */
export async function webhookPage(ctx: PageContext): Promise<Response> {
  const { deps, viewer, flash } = ctx;
  const current = await readWebhook(deps, viewer.accountId);
  const health = await readWebhookHealth(deps, viewer.accountId);
  // A refused form shows what was typed, not what is stored.
  const shown = flash.form && flash.form.has("url") ? { ...current, ...webhookBodyFromForm(flash.form) } : current;
  const events = shown.events as Record<string, unknown>;
  const nets = networkSlugs(deps);
  const kinds = KINDS.map(([kind, label]) => {
    const selected = (events[`${kind}_networks`] as string[] | undefined) ?? [];
    return html`<fieldset><legend>${label}</legend>
<label class="inline"><input type="checkbox" name="${kind}" value="true"${checked(events[kind] === true)}> Send ${kind} events</label>
<div><span class="muted">Only on these networks (none ticked: all):</span><br>${nets.map(
      (n) => html`<label class="inline"><input type="checkbox" name="${kind}_networks" value="${n}"${checked(selected.includes(n))}> ${n}</label>`,
    )}</div></fieldset>`;
  });
  const minConf = html`<label for="wh-minconf">Minimum confirmations before wallet and block events are sent (0 = at once)</label>
<input type="number" id="wh-minconf" name="min_confirmations" min="0" max="1000" value="${String(events.min_confirmations ?? 0)}">`;
  const shownRps = (shown.delivery as { max_rps?: unknown } | undefined)?.max_rps ?? current.delivery.max_rps;
  const maxRps = html`<label for="wh-maxrps">Most deliveries a second to this URL (0 = no limit); a backlog after an outage then arrives at this pace</label>
<input type="number" id="wh-maxrps" name="max_rps" min="0" max="${String(MAX_DELIVERY_RPS)}" value="${String(shownRps)}">`;
  const testForm = flash.form?.has("event") ? flash.form : undefined;
  return cabinetPage(
    ctx,
    "webhook",
    "Webhook",
    html`${healthBanner(health)}<section aria-labelledby="settings-h"><h2 id="settings-h">Settings</h2>
<form method="post" action="/cabinet/webhook">${csrfField(viewer)}
<label for="wh-url">Webhook URL</label><input type="text" inputmode="url" id="wh-url" name="url" autocomplete="off" spellcheck="false" placeholder="https://example.com/hooks/chainwatch" value="${(shown.url as string | null) ?? ""}">
<label class="inline"><input type="checkbox" name="enabled" value="true"${checked(shown.enabled === true)}> Enabled</label>
${kinds}${minConf}${maxRps}
<button type="submit">Save webhook</button></form></section>
<section aria-labelledby="test-h"><h2 id="test-h">Test</h2>
<p class="muted">Queues a signed sample with <code>X-Webhook-Test: true</code>; never billed. Sent to the URL above even while disabled.</p>
<form method="post" action="/cabinet/webhook/test" data-inline>${csrfField(viewer)}
<label for="test-event">Event</label><select id="test-event" name="event">${options(TEST_EVENTS, testForm?.get("event") ?? "payment")}</select>
<label for="test-network">Network</label><select id="test-network" name="network">${options(nets, testForm?.get("network") ?? nets[0])}</select>
<button type="submit">Test</button><output id="test-result" aria-live="polite"></output></form></section>
<section aria-labelledby="egress-h"><h2 id="egress-h">Egress IPs</h2>
${current.egress_ips.length === 0 ? html`<p>Not published by this operator.</p>` : html`<p>Webhooks come from: ${current.egress_ips.map((ip, i) => html`${i ? ", " : ""}<code>${ip}</code>`)}</p>`}
</section>`,
  );
}
