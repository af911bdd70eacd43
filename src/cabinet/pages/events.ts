import { findNetwork } from "../../config/networks.ts";
import type { Failure } from "../../lib/error-codes.ts";
import { listEvents } from "../../watch/events.ts";
import { EVENT_TYPES, parseEventListQuery } from "../../watch/list-events.ts";
import { html } from "../../lib/html.ts";
import { cabinetPage, networkSlugs, options, type PageContext, when } from "../view.ts";

/** Events per page. */
export const EVENTS_PER_PAGE = 25;

type EventBody = {
  id: string;
  type: string;
  network: string;
  direction?: string;
  address?: string;
  amount?: string;
  asset?: string | null;
  tx_hash?: string;
  block_height?: number;
  tx_count?: number;
  removed?: boolean;
  created_at: string;
};

/** The events listing (GET /v1/address-watch/events), a page at a time, with its filters. */
export async function eventsPage(ctx: PageContext): Promise<Response | Failure> {
  const { deps, viewer, query } = ctx;
  const raw = Object.fromEntries([...query].filter(([k, v]) => ["after", "type", "network"].includes(k) && v !== ""));
  const parsed = parseEventListQuery({ ...raw, limit: String(EVENTS_PER_PAGE) }, (slug) => findNetwork(deps.config.networks, slug) !== undefined);
  if (!parsed.ok) return parsed;
  const q = parsed.query;
  const page = await listEvents(deps.db, { accountId: viewer.accountId, ...q });
  if (!page.ok) return page;
  const events = page.bodies.map((b) => JSON.parse(b) as EventBody);
  const filters = new URLSearchParams(Object.entries(raw).filter(([k]) => k !== "after"));
  const next = page.nextAfter ? `/cabinet/events?${new URLSearchParams([...filters, ["after", page.nextAfter]])}` : null;
  const first = `/cabinet/events${filters.size ? `?${filters}` : ""}`;
  const rows = events.map(
    (e) => html`<tr><td>${when(e.created_at)}</td><td>${e.type}${e.direction ? ` (${e.direction})` : ""}${e.removed ? " · removed" : ""}</td><td>${e.network}</td>
<td>${e.type === "block" ? html`block ${e.block_height} · ${e.tx_count} tx` : html`<code>${e.address}</code>`}</td>
<td>${e.amount ?? ""}${e.asset ? html` <code>${e.asset}</code>` : ""}</td><td>${e.tx_hash ? html`<code>${e.tx_hash}</code>` : ""}</td><td><code>${e.id}</code></td></tr>`,
  );
  return cabinetPage(
    ctx,
    "events",
    "Events",
    html`<form method="get" action="/cabinet/events">
<label for="f-type">Type</label><select id="f-type" name="type">${options([["", "any"], ...EVENT_TYPES.map((t) => [t, t] as const)], raw.type ?? "")}</select>
<label for="f-network">Network</label><select id="f-network" name="network">${options([["", "any"], ...networkSlugs(deps).map((n) => [n, n] as const)], raw.network ?? "")}</select>
<button type="submit" class="secondary">Filter</button></form>
${
  events.length === 0
    ? html`<p>No events${q.after ? " after this one" : ""}.</p>`
    : html`<div class="scroll"><table><thead><tr><th scope="col">Time</th><th scope="col">Type</th><th scope="col">Network</th><th scope="col">Address</th><th scope="col">Amount</th><th scope="col">Transaction</th><th scope="col">Event id</th></tr></thead><tbody>${rows}</tbody></table></div>`
}
<nav class="pager" aria-label="Pages">${q.after ? html`<a href="${first}">First page</a>` : ""}${next ? html`<a href="${next}" rel="next">Next page</a>` : ""}</nav>`,
  );
}
