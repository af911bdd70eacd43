import { type CreatedKey, listApiKeys } from "../../accounts/api-keys.ts";
import { html } from "../../lib/html.ts";
import { csrfField } from "../layout.ts";
import { cabinetPage, type PageContext, when } from "../view.ts";

/** Splits a textarea of IPs/CIDRs (one per line, or separated by commas or spaces). */
export function parseAllowIps(text: string | null): string[] {
  return (text ?? "").split(/[\s,]+/).filter((s) => s !== "");
}

/** API keys: create (the secret shown once, with a copy button), revoke, and each key's IP allowlist. */
export async function keysPage(ctx: PageContext): Promise<Response> {
  const { deps, viewer, flash } = ctx;
  const keys = await listApiKeys(deps.db, viewer.accountId);
  const created = flash.extra as CreatedKey | undefined;
  const form = flash.form;
  const createdBox = created
    ? html`<section class="card" aria-labelledby="new-key-h"><h2 id="new-key-h">New key ${created.api_key}</h2>
<p><strong>Copy the secret now: it is not shown again.</strong></p>
<div class="secret"><code id="new-secret">${created.secret}</code><button type="button" data-copy="new-secret">Copy secret</button></div>
<p class="muted">API key: <code id="new-key">${created.api_key}</code> <button type="button" class="secondary" data-copy="new-key">Copy key</button></p></section>`
    : "";
  const rows = keys.map((k) => {
    const active = k.revoked_at === null;
    const id = k.api_key;
    return html`<tr><td><code>${id}</code>${k.label ? html`<br><span class="muted">${k.label}</span>` : ""}</td>
<td>${when(k.created_at)}</td>
<td>${active ? "active" : html`revoked ${when(k.revoked_at)}`}</td>
<td>${
      active
        ? html`<form method="post" action="/cabinet/keys/${id}/allow-ips">${csrfField(viewer)}
<label for="ips-${id}">Allowed IPs for key ${id.slice(0, 8)}</label>
<textarea id="ips-${id}" name="allow_ips" rows="2" placeholder="any IP">${k.allow_ips.join("\n")}</textarea>
<button type="submit" class="secondary">Save allowlist</button></form>`
        : k.allow_ips.join(", ") || "any"
    }</td>
<td>${
      active
        ? html`<form method="post" action="/cabinet/keys/${id}/revoke" data-confirm="Revoke this key? Clients using it stop working.">${csrfField(viewer)}<button type="submit" class="danger" aria-label="Revoke key ${id}">Revoke</button></form>`
        : ""
    }</td></tr>`;
  });
  return cabinetPage(
    ctx,
    "keys",
    "API keys",
    html`${createdBox}
<section aria-labelledby="create-h"><h2 id="create-h">Create a key</h2>
<form method="post" action="/cabinet/keys">${csrfField(viewer)}
<label for="key-label">Label (optional)</label><input type="text" id="key-label" name="label" maxlength="100" value="${form?.get("label") ?? ""}">
<label for="key-ips">Allowed client IPs or CIDRs (optional; one per line, empty = any IP)</label>
<textarea id="key-ips" name="allow_ips" rows="2">${form?.get("allow_ips") ?? ""}</textarea>
<button type="submit">Create key</button></form></section>
<section aria-labelledby="list-h"><h2 id="list-h">Keys</h2>
${keys.length === 0 ? html`<p>No keys yet.</p>` : html`<div class="scroll"><table><thead><tr><th scope="col">Key</th><th scope="col">Created</th><th scope="col">Status</th><th scope="col">IP allowlist</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead><tbody>${rows}</tbody></table></div>`}
</section>`,
  );
}
