import { usageSeries } from "../../billing/usage.ts";
import { usageChart } from "../chart.ts";
import { openNotices } from "../../notices/notices.ts";
import { heldForCredits } from "../../delivery/endpoint-deliveries.ts";
import { creditsHeldBanner } from "./credits-held.ts";
import { html } from "../../lib/html.ts";
import { cabinetPage, type PageContext, when } from "../view.ts";

/** Notices shown on the overview (those whose cause stands); GET /v1/account/notices pages through all of them. */
const NOTICES_SHOWN = 5;

/**
 * Plan, credits, spent today, slots, the 30-day usage chart and the latest notices whose cause
 * stands: what GET /v1/account, /usage and /notices show; above them, a banner while deliveries
 * wait for credits.
 */
export async function overviewPage(ctx: PageContext): Promise<Response> {
  const { deps, viewer } = ctx;
  const a = await deps.snapshots.get(viewer.accountId);
  const series = await usageSeries(deps.db, viewer.accountId, deps.clock.now(), 30);
  const notices = await openNotices(deps.db, viewer.accountId, NOTICES_SHOWN);
  const held = await heldForCredits(deps.db, viewer.accountId);
  const totals = series.reduce((t, p) => ({ credits: t.credits + p.credits, deliveries: t.deliveries + p.deliveries, events: t.events + p.events }), {
    credits: 0,
    deliveries: 0,
    events: 0,
  });
  return cabinetPage(
    ctx,
    "overview",
    "Overview",
    html`${creditsHeldBanner(held, Number(a.credits))}<dl class="stats">
<div><dt>Plan</dt><dd>${a.plan}</dd></div>
<div><dt>Credits</dt><dd id="credits">${Number(a.credits)}</dd></div>
<div><dt>Spent today</dt><dd id="spent-today">${Number(a.spent_today)}</dd></div>
<div><dt>Address slots</dt><dd>${Number(a.slots_used)} / ${a.address_slots}</dd></div>
</dl>
<section aria-labelledby="usage-h"><h2 id="usage-h">Usage, last 30 days</h2>
${usageChart(series)}
<p class="muted">${totals.credits} credits, ${totals.deliveries} deliveries and ${totals.events} events in 30 days. Environment: ${deps.config.environment}; ${a.monthly_credits} monthly credits on this plan.</p>
</section>
<section aria-labelledby="notices-h"><h2 id="notices-h">Notices</h2>
${notices.length === 0 ? html`<p class="muted">Nothing to report.</p>` : html`<ul id="notices">${notices.map((n) => html`<li>${when(n.created_at)} ${n.message}</li>`)}</ul>`}
</section>`,
  );
}
