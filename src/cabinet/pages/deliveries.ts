import { DELIVERY_STATUSES } from "../../delivery/status-terms.ts";
import { deliveryLog, type DeliverySummary, parseDeliveryLogQuery } from "../../delivery/delivery-log.ts";
import type { Failure } from "../../lib/error-codes.ts";
import { html } from "../../lib/html.ts";
import { parseDuration } from "../../lib/time.ts";
import { csrfField } from "../layout.ts";
import { cabinetPage, options, type PageContext, pager, queryRecord, statusBadge, when } from "../view.ts";

/** Deliveries a page, newest first. */
export const DELIVERIES_PER_PAGE = 50;

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

/** What a delivery is, in a few words: a test, a replay, a retraction, or plain. */
export function deliveryKindLabel(d: Pick<DeliverySummary, "kind" | "replay" | "retraction">) {
  return html`${d.retraction ? html` <span class="badge retraction">retraction</span>` : ""}${d.kind === "test" ? html` <span class="muted">test</span>` : ""}${
    d.replay ? html` <span class="muted">replay</span>` : ""
  }`;
}

/** The last attempt's answer: its HTTP status, else its error class. */
export function lastResult(d: Pick<DeliverySummary, "last_status_code" | "last_error">): string {
  return d.last_status_code !== null ? String(d.last_status_code) : (d.last_error ?? "—");
}

/** The delivery log: one compact row per delivery, newest first, paged both ways and filtered by status; Recover below. */
export async function deliveriesPage(ctx: PageContext): Promise<Response | Failure> {
  const { deps, viewer, query } = ctx;
  const parsed = parseDeliveryLogQuery(queryRecord(query));
  if (!parsed.ok) return parsed;
  const q = parsed.query;
  const log = await deliveryLog(deps.db, viewer.accountId, q, DELIVERIES_PER_PAGE);
  if (!log.ok) return log;
  const rows = log.deliveries.map(
    (d) => html`<tr id="${d.id}"><td data-label="Status">${statusBadge(d.status)}${deliveryKindLabel(d)}</td>
<td data-label="Event"><a href="/cabinet/deliveries/${d.id}">${d.event_type}</a></td><td data-label="Network">${d.network}</td>
<td data-label="Created">${when(d.created_at)}</td><td data-label="Attempts">${d.attempts}</td><td data-label="Last code">${lastResult(d)}</td></tr>`,
  );
  const filters = q.status ? [["status", q.status] as const] : [];
  return cabinetPage(
    ctx,
    "deliveries",
    "Deliveries",
    html`<form method="get" action="/cabinet/deliveries" class="filters"><div class="short"><label for="f-status">Status</label>
<select id="f-status" name="status">${options([["", "any"], ...DELIVERY_STATUSES.map((s) => [s, s] as const)], q.status ?? "")}</select></div>
<div class="actions"><button type="submit" class="secondary">Filter</button></div></form>
${
  rows.length === 0
    ? html`<p>No deliveries${q.status ? ` with status ${q.status}` : ""}${q.before ? " older than this" : ""}.</p>`
    : html`<table class="stack deliveries"><caption class="visually-hidden">Deliveries, newest first</caption><thead><tr><th scope="col">Status</th><th scope="col">Event</th><th scope="col">Network</th><th scope="col">Created</th><th scope="col">Attempts</th><th scope="col">Last code</th></tr></thead><tbody>${rows}</tbody></table>`
}
${pager("/cabinet/deliveries", filters, { newer: log.newer, older: log.older, paged: q.before !== undefined || q.after !== undefined })}
<section aria-labelledby="recover-h"><h2 id="recover-h">Recover</h2>
<p class="muted">Back after an outage? Re-queues the failed deliveries queued since then, once each, oldest first, with a fresh retry schedule; each keeps its id and body. Charged on success, like any delivery.</p>
<form method="post" action="/cabinet/deliveries/recover" data-inline>${csrfField(viewer)}<label for="recover-since">Recover failed since</label>
<select id="recover-since" name="since">${options(RECOVER_PERIODS, "24h")}</select>
<button type="submit">Recover failed</button><output id="recover-result" aria-live="polite"></output></form></section>`,
  );
}
