import { MAX_DELIVERY_RPS } from "../../config/schema.ts";
import { readWebhook } from "../../webhooks/default-endpoint.ts";
import { type EndpointHealth, readEndpointHealth } from "../../webhooks/endpoint-health.ts";
import { DEFAULT_GRACE_SECONDS, MAX_GRACE_SECONDS, previousSecretExpiry } from "../../webhooks/endpoint-secret.ts";
import { accountEndpoints, type Endpoint } from "../../webhooks/endpoints.ts";
import type { EventFilters } from "../../webhooks/filters.ts";
import { TEST_EVENTS } from "../../webhooks/samples.ts";
import { type Html, html, raw } from "../../lib/html.ts";
import { rfc3339 } from "../../lib/time.ts";
import { csrfField } from "../layout.ts";
import { creditsHeldBanner } from "./credits-held.ts";
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

/** The grace periods the Rotate form offers: how long the old secret keeps signing too. */
const GRACE_CHOICES = [
  ["0", "End the old secret now"],
  ["3600", "1 hour"],
  [String(DEFAULT_GRACE_SECONDS), "24 hours"],
  [String(MAX_GRACE_SECONDS), "7 days"],
] as const;

/** The test body a submitted Test form stands for (event × network). */
export function testBodyFromForm(form: URLSearchParams): { event: string; network: string } {
  return { event: form.get("event") ?? "", network: form.get("network") ?? "" };
}

/** The rotation body a submitted Rotate form stands for. */
export function rotateBodyFromForm(form: URLSearchParams): Record<string, unknown> {
  const grace = form.get("grace_seconds");
  return grace === null || grace.trim() === "" ? {} : { grace_seconds: wholeNumber(grace) };
}

/** Said when the Reveal form was posted without its confirmation ticked. */
export const REVEAL_UNCONFIRMED = "confirm must be ticked to show the secret";

/** Whether a posted Reveal form carries its confirmation. */
export const revealConfirmed = (form: URLSearchParams) => form.get("confirm") === "yes";

/** A secret a form post produced, shown on the page this once: a new one after Rotate (of the default endpoint, or of `endpointId`), or the current one after Reveal. */
export type ShownSecret = { secret: string; rotated: boolean; endpointId?: string };

/** The secret a Rotate or Reveal post produced, at the top of the page it renders; never on a GET. */
function shownSecretBox(ctx: PageContext): Html | "" {
  const shown = ctx.flash.extra as ShownSecret | undefined;
  if (!shown) return "";
  // The id in code, which breaks anywhere: as plain text it is one word, and one with wide letters overflowed a 360 px screen.
  const title = shown.endpointId ? html`New secret of <code>${shown.endpointId}</code>` : shown.rotated ? "New webhook secret" : "Webhook secret";
  return html`<section class="card" aria-labelledby="shown-secret-h"><h2 id="shown-secret-h">${title}</h2>
<p><strong>${shown.rotated ? "Copy it now: it is not shown again." : "Keep it private: anyone holding it can forge webhooks."}</strong></p>
<div class="secret"><code id="webhook-secret">${shown.secret}</code><button type="button" data-copy="webhook-secret">Copy secret</button></div></section>`;
}

/** The signing secret's section: a rotation's grace period still running, and the Rotate and Reveal forms. */
function secretSection(ctx: PageContext, previousExpiresAt: number | null): Html {
  const { viewer } = ctx;
  const grace =
    previousExpiresAt === null
      ? ""
      : html`<p id="secret-grace">The previous secret also signs every webhook until ${when(rfc3339(previousExpiresAt))}: update your receiver before then.</p>`;
  return html`<section aria-labelledby="secret-h"><h2 id="secret-h">Signing secret</h2>${grace}
<p class="muted">Webhooks are signed with this account's <code>whsec_</code> secret. Rotating makes a new one; during the grace period every webhook carries a signature by each secret in <code>webhook-signature</code>, while <code>X-Signature</code> uses the new one.</p>
<form method="post" action="/cabinet/webhook/secret/rotate" data-confirm="Make a new webhook secret? Receivers must switch to it before the grace period ends.">${csrfField(viewer)}
<label for="secret-grace-select">Old secret keeps signing for</label><select id="secret-grace-select" name="grace_seconds">${options(GRACE_CHOICES, String(DEFAULT_GRACE_SECONDS))}</select>
<button type="submit">Rotate secret</button></form>
<form method="post" action="/cabinet/webhook/secret/reveal" data-confirm="Show the webhook secret on this screen?">${csrfField(viewer)}
<label class="inline"><input type="checkbox" name="confirm" value="yes" required> Show the current secret on this screen</label>
<button type="submit" class="secondary">Reveal secret</button></form></section>`;
}

/**
 * The endpoint's trouble, above the settings: failing since when, or switched off after a run of
 * failures, with the last error. Nothing while it is healthy or switched off by the account holder.
 */
export function healthBanner(h: EndpointHealth): Html | "" {
  const { view } = h;
  const since = view.failing_since === null ? null : rfc3339(view.failing_since * 1000);
  const error = view.last_error === null ? "" : html` Last error: <code>${view.last_error.error}</code>.`;
  if (view.state === "failing")
    return html`<div class="alert err" id="endpoint-health"><strong>Deliveries are failing</strong> since ${when(since)}.${error} ${view.pending} waiting.</div>`;
  if (view.state === "disabled" && h.disabledAt !== null)
    return html`<div class="alert err" id="endpoint-health"><strong>Webhook disabled</strong> on ${when(rfc3339(h.disabledAt))}: every attempt failed since ${when(since)}.${error} Events are still stored and listed; tick Enabled and save to resume deliveries (${view.pending} waiting).</div>`;
  return "";
}

/** What an endpoint's filters let through, in words: the kinds on (with their networks), confirmations, payment orders. */
function filtersInWords(f: EventFilters): string {
  const kinds = KINDS.filter(([kind]) => f[kind]).map(([kind]) => {
    const nets = f[`${kind}_networks`];
    return nets.length === 0 ? kind : `${kind} (${nets.join(", ")})`;
  });
  const parts = [kinds.length === 0 ? "no address-watch events" : kinds.join(", ")];
  if (f.min_confirmations > 0) parts.push(`after ${f.min_confirmations} confirmations`);
  parts.push(f.payment_order ? "payment orders" : "no payment orders");
  return parts.join("; ");
}

const STATE_WORDS: Record<EndpointHealth["view"]["state"], string> = {
  healthy: "Healthy",
  held: "Held: credits cannot pay",
  failing: "Failing",
  disabled: "Disabled",
};

/**
 * One endpoint in the list: its settings, its health, and its own Test and Rotate forms (the rules of
 * POST /v1/webhooks/endpoints/{id}/test and …/secret/rotate). Ids on the page carry the endpoint's id.
 */
function endpointItem(ctx: PageContext, e: Endpoint, health: EndpointHealth, isDefault: boolean): Html {
  const { viewer } = ctx;
  const nets = networkSlugs(ctx.deps);
  const id = e.id;
  const { view } = health;
  const since = view.failing_since === null ? null : rfc3339(view.failing_since * 1000);
  const trouble =
    view.state === "failing" || view.state === "disabled"
      ? html`${since === null ? "" : html` since ${when(since)}`}${view.last_error === null ? "" : html`; last error <code>${view.last_error.error}</code>`}`
      : "";
  return html`<li class="card" id="endpoint-${id}">
<h3 id="endpoint-${id}-h"><code>${id}</code>${isDefault ? html` <span class="muted">(default: the settings above)</span>` : ""}</h3>
${e.description === null ? "" : html`<p>${e.description}</p>`}
<dl class="stats">
<div><dt>URL</dt><dd>${e.url === null ? html`<span class="muted">none</span>` : html`<code>${e.url}</code>`}</dd></div>
<div><dt>Enabled</dt><dd>${e.enabled ? "yes" : "no"}</dd></div>
<div><dt>Sends</dt><dd>${filtersInWords(e.events)}</dd></div>
<div><dt>Most a second</dt><dd>${String(e.maxRps ?? ctx.deps.config.delivery.max_rps)}</dd></div>
<div><dt>Health</dt><dd class="endpoint-state" data-state="${view.state}">${STATE_WORDS[view.state]}${trouble}; ${String(view.pending)} waiting, ${String(view.failed)} failed</dd></div>
</dl>
<form method="post" action="/cabinet/webhook/endpoints/${id}/test" data-inline>${csrfField(viewer)}
<label for="endpoint-${id}-event">Test event</label><select id="endpoint-${id}-event" name="event">${options(TEST_EVENTS, "payment")}</select>
<label for="endpoint-${id}-network">Network</label><select id="endpoint-${id}-network" name="network">${options(nets, nets[0])}</select>
<button type="submit">Test</button><output aria-live="polite"></output></form>
<form method="post" action="/cabinet/webhook/endpoints/${id}/secret/rotate" data-confirm="Make a new secret for ${id}? Its receiver must switch to it before the grace period ends.">${csrfField(viewer)}
<label for="endpoint-${id}-grace">Old secret keeps signing for</label><select id="endpoint-${id}-grace" name="grace_seconds">${options(GRACE_CHOICES, String(DEFAULT_GRACE_SECONDS))}</select>
<button type="submit">Rotate secret</button></form>
</li>`;
}

/** Every endpoint of the account, oldest (the default) first, each with its settings, health, Test and Rotate. */
async function endpointsSection(ctx: PageContext): Promise<Html> {
  const endpoints = await accountEndpoints(ctx.deps.db, ctx.viewer.accountId);
  const items: Html[] = [];
  for (const [i, e] of endpoints.entries()) items.push(endpointItem(ctx, e, await readEndpointHealth(ctx.deps.db, e), i === 0));
  return html`<section aria-labelledby="endpoints-h"><h2 id="endpoints-h">Endpoints</h2>
<p class="muted">Each endpoint gets its own copy of every webhook its filters take, signed with its own secret, retried and rate-limited on its own. Add, change or remove endpoints with the API (<code>/v1/webhooks/endpoints</code>) or <code>chainwatch webhook endpoints</code>.</p>
<ul id="endpoints" class="endpoints">${items}</ul></section>`;
}

/** The address-watch webhook (the default endpoint): URL, enabled, filters, the Test button, the signing secret, egress IPs, and every endpoint. */
export async function webhookPage(ctx: PageContext): Promise<Response> {
  const { deps, viewer, flash } = ctx;
  const current = await readWebhook(deps, viewer.accountId);
  const [main] = await accountEndpoints(deps.db, viewer.accountId);
  const health = await readEndpointHealth(deps.db, main);
  const previousExpiresAt = await previousSecretExpiry(deps, main.id);
  const balance = health.view.held_no_credits === 0 ? 0 : Number((await deps.snapshots.get(viewer.accountId)).credits);
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
    html`${shownSecretBox(ctx)}${healthBanner(health)}${creditsHeldBanner(health.view.held_no_credits, balance)}<section aria-labelledby="settings-h"><h2 id="settings-h">Settings</h2>
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
${secretSection(ctx, previousExpiresAt)}
${await endpointsSection(ctx)}
<section aria-labelledby="egress-h"><h2 id="egress-h">Egress IPs</h2>
${current.egress_ips.length === 0 ? html`<p>Not published by this operator.</p>` : html`<p>Webhooks come from: ${current.egress_ips.map((ip, i) => html`${i ? ", " : ""}<code>${ip}</code>`)}</p>`}
</section>`,
  );
}
