import { findNetwork } from "../../config/networks.ts";
import type { Failure } from "../../lib/error-codes.ts";
import { html } from "../../lib/html.ts";
import { eventLog, parseEventLogQuery } from "../../watch/event-log.ts";
import { EVENT_TYPES } from "../../watch/list-events.ts";
import { cabinetPage, networkSlugs, options, type PageContext, pager, queryRecord, when } from "../view.ts";

/** Events per page. */
export const EVENTS_PER_PAGE = 25;

/** An event body's fields the pages show (the body is the webhook's, docs/webhooks.md). */
export type EventBody = {
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

/** The filters a page keeps in its links, from the query as typed. */
const FILTER_KEYS = ["type", "network", "address", "tx_hash"] as const;

/** The events log: newest first, paged both ways, filtered by type, network, address or transaction; each event opens on its own page. */
export async function eventsPage(ctx: PageContext): Promise<Response | Failure> {
  const { deps, viewer, query } = ctx;
  const parsed = parseEventLogQuery(queryRecord(query), (slug) => findNetwork(deps.config.networks, slug) !== undefined);
  if (!parsed.ok) return parsed;
  const q = parsed.query;
  const page = await eventLog(deps.db, viewer.accountId, q, EVENTS_PER_PAGE);
  if (!page.ok) return page;
  const shown = { type: q.type, network: q.network, address: q.address, tx_hash: q.txHash };
  const filters = FILTER_KEYS.flatMap((k) => (shown[k] ? [[k, shown[k] as string] as const] : []));
  const rows = page.events.map((row) => {
    const e = JSON.parse(row.body) as EventBody;
    return html`<tr id="${e.id}"><td data-label="Time"><a href="/cabinet/events/${e.id}">${when(e.created_at)}</a></td>
<td data-label="Type">${e.type}${e.direction ? ` (${e.direction})` : ""}${e.removed ? html` <span class="badge retraction">removed</span>` : ""}</td><td data-label="Network">${e.network}</td>
<td data-label="${e.type === "block" ? "Block" : "Address"}" class="wide">${e.type === "block" ? html`${e.block_height} · ${e.tx_count} tx` : html`<code>${e.address}</code>`}</td>
${e.amount === undefined ? html`<td class="empty">—</td>` : html`<td data-label="Amount">${e.amount}${e.asset ? html` <code>${e.asset}</code>` : ""}</td>`}
${e.tx_hash === undefined ? html`<td class="empty">—</td>` : html`<td data-label="Tx" class="wide"><code>${e.tx_hash}</code></td>`}</tr>`;
  });
  const filtered = filters.length > 0;
  return cabinetPage(
    ctx,
    "events",
    "Events",
    html`<form method="get" action="/cabinet/events" class="filters">
<div class="short"><label for="f-type">Type</label><select id="f-type" name="type">${options([["", "any"], ...EVENT_TYPES.map((t) => [t, t] as const)], q.type ?? "")}</select></div>
<div class="short"><label for="f-network">Network</label><select id="f-network" name="network">${options([["", "any"], ...networkSlugs(deps).map((n) => [n, n] as const)], q.network ?? "")}</select></div>
<div><label for="f-address">Address</label><input type="text" id="f-address" name="address" value="${q.address ?? ""}" autocomplete="off" spellcheck="false"></div>
<div><label for="f-tx">Transaction hash</label><input type="text" id="f-tx" name="tx_hash" value="${q.txHash ?? ""}" autocomplete="off" spellcheck="false"></div>
<div class="actions"><button type="submit" class="secondary">Filter</button>${filtered ? html` <a href="/cabinet/events">Clear</a>` : ""}</div></form>
${
  rows.length === 0
    ? html`<p>No events${filtered ? " match these filters" : ""}${q.before ? " older than this" : ""}.</p>`
    : html`<table class="stack events"><caption class="visually-hidden">Events, newest first</caption><thead><tr><th scope="col">Time</th><th scope="col">Type</th><th scope="col">Network</th><th scope="col">Address or block</th><th scope="col">Amount</th><th scope="col">Transaction</th></tr></thead><tbody>${rows}</tbody></table>`
}
${pager("/cabinet/events", filters, { newer: page.newer, older: page.older, paged: q.before !== undefined || q.after !== undefined })}`,
  );
}
