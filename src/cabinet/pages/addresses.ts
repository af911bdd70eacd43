import { MAX_BATCH } from "../../watch/watch-batch.ts";
import { listWatches, watchView } from "../../watch/watches.ts";
import { type NetworkService, networkServices } from "../../follow/network-service.ts";
import { type Html, html } from "../../lib/html.ts";
import { csrfField } from "../layout.ts";
import { cabinetPage, options, type PageContext, when } from "../view.ts";

/** Watched addresses: add, delete, the slot counter, and where each network's blocks come from. */
export async function addressesPage(ctx: PageContext): Promise<Response> {
  const { deps, viewer, flash } = ctx;
  const [snapshot, watches] = await Promise.all([deps.snapshots.get(viewer.accountId), listWatches(deps.db, viewer.accountId)]);
  const form = flash.form;
  const networks = networkServices(deps.config);
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
<label for="add-network">Network</label><select id="add-network" name="network_slug">${options(
      networks.map((n) => [n.network, `${n.network} (${n.blocks_from === "follower" ? "followed" : "ingest only"})`] as const),
      form?.get("network_slug") ?? "eth",
    )}</select>
<label for="add-address">Address</label><input type="text" id="add-address" name="address" required autocomplete="off" spellcheck="false" value="${form?.get("address") ?? ""}">
<button type="submit">Add address</button></form></section>
<section aria-labelledby="paste-h"><h2 id="paste-h">Watch a list</h2>
<form method="post" action="/cabinet/addresses/batch">${csrfField(viewer)}
<label for="paste-network">Network</label><select id="paste-network" name="network_slug">${options(
      networks.map((n) => [n.network, `${n.network} (${n.blocks_from === "follower" ? "followed" : "ingest only"})`] as const),
      form?.get("network_slug") ?? "eth",
    )}</select>
<label for="paste-addresses">Addresses, one a line (or separated by spaces or commas), up to ${MAX_BATCH}</label><textarea id="paste-addresses" name="addresses" rows="6" required autocomplete="off" spellcheck="false">${form?.get("addresses") ?? ""}</textarea>
<button type="submit">Add addresses</button></form></section>
${networksSection(networks)}
<section aria-labelledby="list-h"><h2 id="list-h">Addresses</h2>
${watches.length === 0 ? html`<p>No addresses watched yet.</p>` : html`<div class="scroll"><table><thead><tr><th scope="col">Network</th><th scope="col">Address</th><th scope="col">Watch id</th><th scope="col">Added</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead><tbody>${rows}</tbody></table></div>`}
</section>`,
  );
}

/**
 * Where each network's blocks come from, and whether /rpc serves it (GET /v1/endpoints says the
 * same): an address on a network nothing feeds would wait for events that never come.
 */
function networksSection(networks: readonly NetworkService[]): Html {
  const rows = networks.map(
    (n) => html`<tr><td>${n.network}</td><td>${n.family}</td><td>${n.blocks_from === "follower" ? "Followed: chainwatch reads the chain from a node" : "Ingest only: events come when blocks are fed in (POST /ingest/blocks or chainwatch ingest)"}</td><td>${n.rpc ? html`<code>/rpc/${n.network}</code>` : "No"}</td></tr>`,
  );
  return html`<section aria-labelledby="networks-h"><h2 id="networks-h">Networks</h2>
<div class="scroll"><table id="networks"><thead><tr><th scope="col">Network</th><th scope="col">Family</th><th scope="col">Blocks</th><th scope="col">JSON-RPC</th></tr></thead><tbody>${rows}</tbody></table></div>
</section>`;
}
