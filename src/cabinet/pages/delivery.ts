import { deliveryDetail } from "../../webhooks/delivery-detail.ts";
import type { Failure } from "../../lib/error-codes.ts";
import { html } from "../../lib/html.ts";
import { VERSION } from "../../version.ts";
import { csrfField } from "../layout.ts";
import { cabinetPage, type PageContext, prettyJson, statusBadge, when } from "../view.ts";
import { deliveryKindLabel } from "./deliveries.ts";

/**
 * One delivery: what it is, Resend, every attempt (code or error, duration, response preview), the
 * exact body and the headers as the sender builds them. Another account's delivery is not found.
 */
export async function deliveryPage(ctx: PageContext, deliveryId: string): Promise<Response | Failure> {
  const { deps, viewer } = ctx;
  const found = await deliveryDetail({ ...deps, userAgent: `chainwatch/${VERSION}` }, viewer.accountId, deliveryId);
  if (!found.ok) return found;
  const { delivery: d, body, retraction, headers } = found.detail;
  const attempts = d.attempt_log.map(
    (a) => html`<tr${a.requeued ? html` class="requeued"` : ""}><td data-label="#">${a.attempt}${a.requeued ? html` <span class="muted">(re-queued)</span>` : ""}</td>
<td data-label="Started">${when(a.started_at)}</td><td data-label="Result" class="result">${a.status_code !== null ? `HTTP ${a.status_code}` : (a.error ?? "")}</td>
<td data-label="Duration">${a.duration_ms} ms</td><td data-label="Response" class="wide">${a.response ? html`<pre>${a.response}</pre>` : html`<span class="muted">—</span>`}</td></tr>`,
  );
  const event = d.event_id ? html`<a href="/cabinet/events/${d.event_id}"><code>${d.event_id}</code></a>` : "";
  return cabinetPage(
    ctx,
    "deliveries",
    "Delivery",
    html`<section aria-labelledby="d-h"><h2 id="d-h"><code>${d.id}</code></h2>
<p>${statusBadge(d.status)}${deliveryKindLabel({ kind: d.kind, replay: d.replay, retraction })} ${d.event_type} on ${d.network}</p>
<p id="attempt-count">${d.attempts} ${d.attempts === 1 ? "attempt" : "attempts"} · created ${when(d.created_at)}${d.completed_at ? html` · completed ${when(d.completed_at)}` : ""}${
      d.next_attempt_at ? html` · next attempt ${when(d.next_attempt_at)}` : ""
    }${d.credits_charged ? html` · ${d.credits_charged} credits` : ""}</p>
${
  retraction
    ? html`<p id="retraction">A retraction: a reorg took event ${event} out of the chain, and this delivery tells the receiver so (<code>"removed": true</code>).</p>`
    : d.event_id
      ? html`<p>Event ${event}</p>`
      : ""
}${d.payment_id ? html`<p>Payment order <a href="/cabinet/payments/${d.payment_id}"><code>${d.payment_id}</code></a></p>` : ""}
${
  // A succeeded delivery is not sent twice; a held one waits for its confirmations (retryDelivery refuses both).
  d.status === "succeeded" || d.status === "held"
    ? ""
    : html`<form method="post" action="/cabinet/deliveries/${d.id}/resend">${csrfField(viewer)}<button type="submit" class="secondary" aria-label="Resend ${d.id}">Resend</button></form>`
}</section>
<section aria-labelledby="attempts-h"><h2 id="attempts-h">Attempts</h2>
${
  attempts.length === 0
    ? html`<p class="muted">No attempts yet.</p>`
    : html`<table class="stack attempts"><caption class="visually-hidden">Attempts of ${d.id}, oldest first</caption><thead><tr><th scope="col">#</th><th scope="col">Started</th><th scope="col">Result</th><th scope="col">Duration</th><th scope="col">Response</th></tr></thead><tbody>${attempts}</tbody></table>`
}</section>
<section aria-labelledby="body-h"><h2 id="body-h">Body</h2>
<pre id="body-json">${prettyJson(body)}</pre>
<details><summary>Exact bytes sent (${new TextEncoder().encode(body).length} bytes, what the signatures cover)</summary><pre id="body-raw">${body}</pre></details></section>
<section aria-labelledby="headers-h"><h2 id="headers-h">Headers</h2>
<p class="muted">${
      headers.attempt === null ? "As an attempt made now would send them" : `As attempt ${headers.attempt} sent them`
    }, signed with the account's current webhook secret (the secret itself is never shown).</p>
<dl class="headers">${headers.values.map(([name, value]) => html`<dt>${name}</dt><dd><code>${value}</code></dd>`)}</dl></section>
<p><a href="/cabinet/deliveries">All deliveries</a></p>`,
  );
}
