import { attemptsOf, DELIVERY_STATUSES, deliveryView, listDeliveries } from "../../delivery/admin.ts";
import { type Failure, invalidInput } from "../../lib/error-codes.ts";
import { html } from "../../lib/html.ts";
import { parseDuration } from "../../lib/time.ts";
import { csrfField } from "../layout.ts";
import { cabinetPage, options, type PageContext, when } from "../view.ts";

/** How many deliveries the page lists, newest first. */
export const DELIVERIES_SHOWN = 50;

/** The periods the Recover button offers: failed deliveries queued since that long ago. */
const RECOVER_PERIODS = [
  ["1h", "1 hour ago"],
  ["24h", "24 hours ago"],
  ["7d", "7 days ago"],
] as const;

/** The period a Recover form chose, in milliseconds, or null when it is not one the page offers. */
export function recoverPeriod(value: string | null): number | null {
  return RECOVER_PERIODS.some(([v]) => v === value) ? parseDuration(value as string) : null;
}

/** The refusal of a period the page does not offer. */
export const UNKNOWN_RECOVER_PERIOD = `since must be one of ${RECOVER_PERIODS.map(([v]) => v).join(", ")}`;

/** The delivery log: status, every attempt (code or error, duration, response preview), and Resend. */
export async function deliveriesPage(ctx: PageContext): Promise<Response | Failure> {
  const { deps, viewer, query } = ctx;
  const status = query.get("status") || undefined;
  if (status !== undefined && !(DELIVERY_STATUSES as readonly string[]).includes(status))
    return invalidInput(`status must be one of ${DELIVERY_STATUSES.join(", ")}`);
  const rows = await listDeliveries(deps.db, { accountId: viewer.accountId, status, limit: DELIVERIES_SHOWN });
  const attempts = await attemptsOf(deps.db, rows.map((d) => d.id));
  const items = rows.map((row) => {
    const d = deliveryView(
      row,
      attempts.filter((a) => a.delivery_id === row.id),
    );
    const log = d.attempt_log ?? [];
    return html`<section class="card delivery" id="${d.id}" aria-labelledby="h-${d.id}">
<h2 id="h-${d.id}"><code>${d.id}</code></h2>
<p><strong class="status">${d.status}</strong> · ${d.kind === "test" ? "test " : d.replay ? "replayed " : ""}${d.event_type} on ${d.network} · ${d.attempts} attempt(s) · created ${when(d.created_at)}${
      d.next_attempt_at ? html` · next attempt ${when(d.next_attempt_at)}` : ""
    }${d.credits_charged ? html` · ${d.credits_charged} credits` : ""}</p>
${
  log.length === 0
    ? html`<p class="muted">No attempts yet.</p>`
    : html`<div class="scroll"><table><caption class="visually-hidden">Attempts of ${d.id}</caption><thead><tr><th scope="col">#</th><th scope="col">Started</th><th scope="col">Result</th><th scope="col">Duration</th><th scope="col">Response</th></tr></thead><tbody>${log.map(
        (a) => html`<tr><td>${a.attempt}</td><td>${when(a.started_at)}</td><td class="result">${a.status_code !== null ? `HTTP ${a.status_code}` : ""}${a.error && a.status_code === null ? a.error : ""}</td><td>${a.duration_ms} ms</td><td><code>${a.response ?? ""}</code></td></tr>`,
      )}</tbody></table></div>`
}
${
  // A succeeded delivery is not sent twice; a held one waits for its confirmations (retryDelivery refuses both).
  d.status === "succeeded" || d.status === "held"
    ? ""
    : html`<form method="post" action="/cabinet/deliveries/${d.id}/resend">${csrfField(viewer)}<button type="submit" class="secondary" aria-label="Resend ${d.id}">Resend</button></form>`
}</section>`;
  });
  return cabinetPage(
    ctx,
    "deliveries",
    "Deliveries",
    html`<section aria-labelledby="recover-h"><h2 id="recover-h">Recover</h2>
<p class="muted">Back after an outage? Re-queues the failed deliveries queued since then, once each, oldest first, with a fresh retry schedule; each keeps its id and body. Charged on success, like any delivery.</p>
<form method="post" action="/cabinet/deliveries/recover" data-inline>${csrfField(viewer)}<label for="recover-since">Recover failed since</label>
<select id="recover-since" name="since">${options(RECOVER_PERIODS, "24h")}</select>
<button type="submit">Recover failed</button></form></section>
<form method="get" action="/cabinet/deliveries"><label for="f-status">Status</label>
<select id="f-status" name="status">${options([["", "any"], ...DELIVERY_STATUSES.map((s) => [s, s] as const)], status ?? "")}</select>
<button type="submit" class="secondary">Filter</button></form>
<p class="muted">The ${DELIVERIES_SHOWN} newest deliveries${status ? ` with status ${status}` : ""}.</p>
${items.length === 0 ? html`<p>No deliveries yet.</p>` : items}`,
  );
}
