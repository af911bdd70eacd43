import type { Failure } from "../lib/error-codes.ts";
import { type Html, html, raw } from "../lib/html.ts";
import type { CabinetDeps } from "./deps.ts";
import { type PageName, page, type Viewer } from "./layout.ts";

/** What a page is rendered after: a success notice, or the API's error with its status, and the submitted form. */
export type Flash = {
  notice?: string | null;
  error?: string | null;
  status?: number;
  /** The submitted fields, so a refused form keeps what was typed. */
  form?: URLSearchParams;
  /** Set when a POST rendered the page: the GET address to show instead. */
  canonicalUrl?: string;
  /** Page-specific data produced by the action (a new key's secret). */
  extra?: unknown;
};

/** Everything a page renderer gets. */
export type PageContext = { deps: CabinetDeps; viewer: Viewer; query: URLSearchParams; flash: Flash };

/** A page, or the failure to show instead (a bad filter, another account's record). */
export type PageRenderer = (ctx: PageContext) => Promise<Response | Failure>;

/** Renders a page of the signed-in cabinet with the flash applied. */
export function cabinetPage(ctx: PageContext, name: PageName, title: string, body: Html): Response {
  const { flash } = ctx;
  return page({
    title,
    viewer: ctx.viewer,
    active: name,
    notice: flash.notice,
    error: flash.error,
    status: flash.status,
    canonicalUrl: flash.canonicalUrl,
    body,
  });
}

/** `<option>`s with one selected. */
export function options(values: readonly (string | readonly [string, string])[], selected: string | null | undefined): Html[] {
  return values.map((v) => {
    const [value, label] = typeof v === "string" ? [v, v] : v;
    return html`<option value="${value}"${raw(value === selected ? " selected" : "")}>${label}</option>`;
  });
}

/** An RFC 3339 instant shown compactly (`2026-11-21 19:08:00 UTC`), machine-readable in <time>. */
export function when(rfc: string | null | undefined): Html {
  if (!rfc) return html`<span class="muted">—</span>`;
  return html`<time datetime="${rfc}">${rfc.slice(0, 19).replace("T", " ")} UTC</time>`;
}

/** Network slugs this daemon serves, in config order. */
export function networkSlugs(deps: Pick<CabinetDeps, "config">): string[] {
  return Object.keys(deps.config.networks);
}
