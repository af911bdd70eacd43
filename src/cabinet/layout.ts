import { CONTENT_SECURITY_POLICY, CSS, JS } from "./assets.ts";
import { type Html, html, raw, type Renderable } from "../lib/html.ts";

/** The signed-in account and the CSRF token its forms carry. */
export type Viewer = { accountId: string; accountName: string; csrf: string };

/** The cabinet's pages, in navigation order. */
export const NAV = [
  ["overview", "/cabinet/", "Overview"],
  ["keys", "/cabinet/keys", "API keys"],
  ["addresses", "/cabinet/addresses", "Addresses"],
  ["webhook", "/cabinet/webhook", "Webhook"],
  ["deliveries", "/cabinet/deliveries", "Deliveries"],
  ["events", "/cabinet/events", "Events"],
  ["payments", "/cabinet/payments", "Payment orders"],
] as const;

export type PageName = (typeof NAV)[number][0];

/** A link a notice ends with: where to follow what the post started. */
export type NoticeLink = { href: string; label: string };

export type PageOptions = {
  title: string;
  viewer?: Viewer;
  active?: PageName;
  /** A success message shown above the content (role=status). */
  notice?: string | null;
  /** A page the notice is about, linked after it (the delivery a Test queued). */
  noticeLink?: NoticeLink;
  /** The API's error message, shown above the content (role=alert). */
  error?: string | null;
  /** For a page rendered by a POST: the GET address the browser should show and reload. */
  canonicalUrl?: string;
  status?: number;
  body: Renderable;
};

/** Security headers of every cabinet response: nothing cached, framed, referred or sniffed. */
export const SECURITY_HEADERS: Record<string, string> = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
};

/** A hidden field with the session's CSRF token, for every form that changes something. */
export function csrfField(v: Viewer): Html {
  return html`<input type="hidden" name="csrf" value="${v.csrf}">`;
}

function header(v: Viewer | undefined, active: PageName | undefined): Html {
  if (!v) return html`<header><strong>chainwatch</strong></header>`;
  return html`<header><strong>chainwatch</strong><span>Account <b>${v.accountName}</b></span>
<form method="post" action="/cabinet/logout">${csrfField(v)}<button class="secondary" type="submit">Sign out</button></form></header>
<nav aria-label="Cabinet"><ul>${NAV.map(
    ([name, href, label]) => html`<li><a href="${href}"${raw(name === active ? ' aria-current="page"' : "")}>${label}</a></li>`,
  )}</ul></nav>`;
}

/** Renders a whole page as an HTML response. */
export function page(o: PageOptions): Response {
  const doc = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${o.title} · chainwatch</title><link rel="icon" href="/cabinet/favicon.svg" type="image/svg+xml"><style>${raw(CSS)}</style></head>
<body${o.canonicalUrl ? html` data-url="${o.canonicalUrl}"` : ""}><a class="skip" href="#main">Skip to content</a>${header(o.viewer, o.active)}
<main id="main"><h1>${o.title}</h1>
${o.error ? html`<div class="alert err" role="alert">${o.error}</div>` : ""}${o.notice ? html`<div class="alert ok" role="status">${o.notice}${o.noticeLink ? html` <a href="${o.noticeLink.href}">${o.noticeLink.label}</a>` : ""}</div>` : ""}
${o.body}</main><script>${raw(JS)}</script></body></html>`;
  return new Response(doc.text, { status: o.status ?? 200, headers: { "content-type": "text/html; charset=utf-8", ...SECURITY_HEADERS } });
}
