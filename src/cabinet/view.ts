import type { Failure } from "../lib/error-codes.ts";
import type { RawQuery } from "../lib/query-params.ts";
import { type Html, html, raw } from "../lib/html.ts";
import type { CabinetDeps } from "./deps.ts";
import { type NoticeLink, type PageName, page, type Viewer } from "./layout.ts";

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
  /** A page the notice is about (the delivery a Test queued), linked after it. */
  noticeLink?: NoticeLink;
};

/** Everything a page renderer gets. */
export type PageContext = {
  deps: CabinetDeps;
  viewer: Viewer;
  query: URLSearchParams;
  flash: Flash;
  /** The path's parameters (a record's id); empty on a page without any. */
  params: Record<string, string>;
};

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
    noticeLink: flash.noticeLink,
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

/** A page's query as the use cases read it: repeated keys kept as lists (src/lib/query-params.ts). */
export function queryRecord(query: URLSearchParams): RawQuery {
  const out: RawQuery = {};
  for (const [key, value] of query) {
    const seen = out[key];
    out[key] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  return out;
}

/**
 * The links around one page of a newest-first log: Newer (`after` the first row shown), Older
 * (`before` the last), and Newest once away from the top; each keeps the filters.
 */
export function pager(path: string, filters: readonly (readonly [string, string])[], cursors: { newer: string | null; older: string | null; paged: boolean }): Html {
  const href = (cursor?: readonly [string, string]) => {
    const q = new URLSearchParams([...filters, ...(cursor ? [cursor] : [])].map(([k, v]): [string, string] => [k, v]));
    return q.size > 0 ? `${path}?${q}` : path;
  };
  return html`<nav class="pager" aria-label="Pages">${cursors.paged ? html`<a href="${href()}">Newest</a>` : ""}${
    cursors.newer ? html`<a href="${href(["after", cursors.newer])}" rel="prev">← Newer</a>` : ""
  }${cursors.older ? html`<a href="${href(["before", cursors.older])}" rel="next">Older →</a>` : ""}</nav>`;
}

/** A delivery status as a coloured badge (the colour is a class; the word is the status). */
export function statusBadge(status: string): Html {
  return html`<span class="badge ${status}">${status}</span>`;
}

/** A JSON text indented for reading (escaped when rendered); text that is not JSON as it is. */
export function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
