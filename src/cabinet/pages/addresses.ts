import { listWatches, watchView } from "../../watch/watches.ts";
import { html } from "../../lib/html.ts";
import { csrfField } from "../layout.ts";
import { cabinetPage, networkSlugs, options, type PageContext, when } from "../view.ts";

/** Watched addresses: add, delete, and the slot counter. */
export async function addressesPage(ctx: PageContext): Promise<Response> {
  const { deps, viewer, flash } = ctx;
  const [snapshot, watches] = await Promise.all([deps.snapshots.get(viewer.accountId), listWatches(deps.db, viewer.accountId)]);
  const form = flash.form;
  const rows = watches.map(watchView).map(
    (w) => html`<tr><td>${w.network_slug}</td><td><code>${w.address}</code></td><td><code>${w.watch_id}</code></td><td>${when(w.created_at)}</td>
<td><form method="post" action="/cabinet/addresses/${w.watch_id}/delete" data-confirm="Stop watching this address?">${csrfField(viewer)}<button type="submit" class="danger" aria-label="Delete ${w.address} on ${w.network_slug}">Delete</button></form></td></tr>`,
  );
  return cabinetPage(
    ctx,
    "addresses",
    "Watched addresses",
    html`<p id="slots" aria-live="polite"><strong>${Number(snapshot.slots_used)}</strong> of <strong>${snapshot.address_slots}</strong> address slots used.</p>
${snapshot.address_slots === 0 ? html`<p id="no-slots">The ${snapshot.plan} plan has 0 address slots, so this account cannot watch addresses yet: ask the operator of this chainwatch to move it to a plan with slots.</p>` : ""}
<section aria-labelledby="add-h"><h2 id="add-h">Watch an address</h2>
<form method="post" action="/cabinet/addresses">${csrfField(viewer)}
<label for="add-network">Network</label><select id="add-network" name="network_slug">${options(networkSlugs(deps), form?.get("network_slug") ?? "eth")}</select>
<label for="add-address">Address</label><input type="text" id="add-address" name="address" required autocomplete="off" spellcheck="false" value="${form?.get("address") ?? ""}">
<button type="submit">Add address</button></form></section>
<section aria-labelledby="list-h"><h2 id="list-h">Addresses</h2>
${watches.length === 0 ? html`<p>No addresses watched yet.</p>` : html`<div class="scroll"><table><thead><tr><th scope="col">Network</th><th scope="col">Address</th><th scope="col">Watch id</th><th scope="col">Added</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead><tbody>${rows}</tbody></table></div>`}
</section>`,
  );
}
