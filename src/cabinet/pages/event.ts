import { deliveriesOfEvent } from "../../delivery/delivery-log.ts";
import type { Failure } from "../../lib/error-codes.ts";
import { html } from "../../lib/html.ts";
import { receivedEvent } from "../../watch/event-log.ts";
import { cabinetPage, type PageContext, prettyJson, statusBadge, when } from "../view.ts";
import { deliveryKindLabel, lastResult } from "./deliveries.ts";
import type { EventBody } from "./events.ts";

/** One event: its stored body (as listed and delivered), pretty-printed, and its deliveries. Another account's event is not found. */
export async function eventPage(ctx: PageContext, eventId: string): Promise<Response | Failure> {
  const { deps, viewer } = ctx;
  const found = await receivedEvent(deps.db, viewer.accountId, eventId);
  if (!found.ok) return found;
  const { body } = found.event;
  const e = JSON.parse(body) as EventBody;
  const deliveries = await deliveriesOfEvent(deps.db, viewer.accountId, e.id);
  return cabinetPage(
    ctx,
    "events",
    "Event",
    html`<section aria-labelledby="e-h"><h2 id="e-h"><code>${e.id}</code></h2>
<p>${e.type}${e.direction ? ` (${e.direction})` : ""} on ${e.network} · ${when(e.created_at)}${e.removed ? html` · <span class="badge retraction">removed</span> a reorg took its block out of the chain` : ""}</p>
<pre id="event-json">${prettyJson(body)}</pre></section>
<section aria-labelledby="ed-h"><h2 id="ed-h">Deliveries</h2>
${
  deliveries.length === 0
    ? html`<p class="muted">None: the webhook was off, or its filters left this event out, when the event was stored.</p>`
    : html`<ul>${deliveries.map(
        (d) =>
          html`<li>${statusBadge(d.status)}${deliveryKindLabel(d)} <a href="/cabinet/deliveries/${d.id}"><code>${d.id}</code></a> · ${d.attempts} ${d.attempts === 1 ? "attempt" : "attempts"} · last ${lastResult(d)}</li>`,
      )}</ul>`
}</section>
<p><a href="/cabinet/events">All events</a></p>`,
  );
}
