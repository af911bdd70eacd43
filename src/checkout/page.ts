import { type Html, html, raw } from "../lib/html.ts";
import { CHECKOUT_PATH } from "../payments/checkout-token.ts";
import { CSS, SCRIPT_SRC, SECURITY_HEADERS } from "./assets.ts";
import { type CheckoutView, checkoutJson } from "./view-model.ts";

// The checkout page's HTML (docs/checkout.md): a plain function of the view, every value escaped by
// `html`. The parts that change with the order (#status, #pay, #done) are containers the script
// refreshes in place; everything is readable without it.

/** Renders an SVG QR code of `text`, labelled `label` for screen readers (a cache in production). */
export type QrRenderer = (text: string, label: string) => string;

function shell(title: string, body: Html, status: number): Response {
  const doc = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><meta name="robots" content="noindex">
<title>${title}</title><link rel="icon" href="data:,"><style>${raw(CSS)}</style><script src="${SCRIPT_SRC}" defer></script></head>
<body>${body}
<p id="live" class="visually-hidden" role="status" aria-live="polite"></p>
<footer>This page shows one payment request and nothing else. Served by chainwatch.</footer></body></html>`;
  return new Response(doc.text, { status, headers: { "content-type": "text/html; charset=utf-8", ...SECURITY_HEADERS } });
}

/** "2026-11-21 20:08 UTC": a deadline anyone can read, whatever their device's time zone. */
function utc(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** "59:12 left" as of rendering; the script ticks it. */
function timeLeft(seconds: number): string {
  if (seconds <= 0) return "Time is up";
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = String(seconds % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${s} left` : `${m}:${s} left`;
}

function statusPart(v: CheckoutView): Html {
  const { have, need } = v.confirmations;
  const counting = v.status === "seen" || (v.status === "underpaid" && have < need && have > 0);
  return html`<section class="card status ${v.status}" aria-labelledby="status-h"><h2 id="status-h">${v.headline}</h2>
${v.details.map((d) => html`<p>${d}</p>`)}${counting ? html`<progress max="${need}" value="${have}" aria-label="Confirmations: ${have} of ${need}">${have} of ${need}</progress>` : ""}
${
  v.deadlineApplies
    ? html`<p class="deadline"><strong>Time left: <span id="countdown" role="timer">${timeLeft(v.secondsLeft)}</span></strong>. Pay before <time datetime="${new Date(v.expiresAtMs).toISOString()}">${utc(v.expiresAtMs)}</time>; a payment seen before then completes even if it confirms later.</p>`
    : ""
}</section>`;
}

/** The request to pay: QR code, wallet link, amount, network, address and what to watch out for. */
function payPart(v: CheckoutView, qr: QrRenderer): Html {
  if (v.paymentUri === null) return html``;
  const money = `${v.amountDue} ${v.unit}`;
  const partial = v.amountDue !== v.amount;
  const label = `QR code of the payment request: ${money} on the ${v.network} network to ${v.address}`;
  return html`<section class="card pay" aria-labelledby="pay-h"><h2 id="pay-h" class="visually-hidden">How to pay</h2>
<figure>${raw(qr(v.paymentUri, label))}<figcaption>Scan with your wallet app</figcaption>
${v.opensWallet ? html`<a class="button primary" href="${v.paymentUri}">Open in wallet</a>` : ""}</figure>
<div><dl>
<div><dt>${partial ? "Still due" : "Amount"}</dt><dd class="big"><span id="amount-value">${v.amountDue}</span> ${v.unit}</dd>
<dd><button type="button" hidden data-copy="amount-value">Copy amount</button></dd></div>
<div><dt>Network</dt><dd>${v.network}</dd></div>
${v.asset === null ? "" : html`<div><dt>Token contract</dt><dd><code>${v.asset}</code></dd></div>`}
<div><dt>Address</dt><dd><code id="address-value">${v.address}</code></dd><dd><button type="button" hidden data-copy="address-value">Copy address</button></dd></div>
</dl>
<ul class="warnings">
<li><strong>Right network:</strong> send on the ${v.network} network only${v.asset === null ? "" : html`, and only this token`}. Money sent on another network does not arrive here and cannot be recovered by the shop.</li>
<li><strong>Right amount:</strong> exactly ${money} must arrive. If your wallet or exchange takes a fee out of what it sends, add the fee${partial ? "" : "; if less arrives, this page asks for the rest"}.</li>
</ul></div></section>`;
}

/** Once final: the shop's link, if it gave one. */
function donePart(v: CheckoutView): Html {
  if (!v.final || v.redirectUrl === null) return html``;
  return html`<p class="card"><a class="button primary" href="${v.redirectUrl}">Back to shop</a></p>`;
}

/** The whole page of an order. `token` only builds this page's own addresses. */
export function checkoutPage(token: string, v: CheckoutView, qr: QrRenderer, nowMs: number): Response {
  const base = `${CHECKOUT_PATH}${token}`;
  const title = v.final ? `${v.headline} · ${v.amount} ${v.unit}` : `Pay ${v.amount} ${v.unit}`;
  const body = html`<main id="checkout" data-events="${base}/events" data-json="${base}.json" data-expires="${v.expiresAtMs}" data-now="${nowMs}" data-final="${v.final ? "1" : "0"}" data-state="${JSON.stringify(checkoutJson(v))}">
<header><p>Payment request</p><h1>${v.amount} ${v.unit} <span class="muted">on ${v.network}</span></h1>${v.description === null ? "" : html`<p>${v.description}</p>`}</header>
<div id="status">${statusPart(v)}</div>
<div id="pay">${payPart(v, qr)}</div>
<div id="done">${donePart(v)}</div>
<p id="refresh"><a href="${base}">Refresh status</a> <span class="muted">(this page updates by itself when JavaScript is on)</span></p>
</main>`;
  return shell(title, body, 200);
}

/** An unknown, malformed or mistyped link: the same headers and shape as a real page, status 404. */
export function notFoundPage(): Response {
  return shell(
    "Payment page not found",
    html`<main id="missing"><header><p>Payment request</p><h1>Payment page not found</h1></header>
<section class="card status expired"><h2>This link leads to no payment request</h2><p>Check that the whole link was copied, or ask the shop for it again. Do not send a payment to an address you cannot see on a page like this one.</p></section></main>`,
    404,
  );
}

/** Too many requests from this address: wait a second. */
export function tooManyPage(): Response {
  const res = shell(
    "Too many requests",
    html`<main id="busy"><header><p>Payment request</p><h1>Too many requests</h1></header>
<section class="card status expired"><h2>Please wait a moment</h2><p>This address asked for payment pages too often. Reload the page in a second.</p></section></main>`,
    429,
  );
  res.headers.set("retry-after", "1");
  return res;
}
