import { type Failure, isFailure } from "../../lib/error-codes.ts";
import { getPaymentOrder } from "../../payments/get-order.ts";
import { parseStatus } from "../../payments/list-orders.ts";
import { listOrders, orderViews, PAYMENT_STATUSES } from "../../payments/orders.ts";
import { orderTimeline } from "../../payments/timeline.ts";
import { listWallets } from "../../payments/wallets/wallets.ts";
import { html } from "../../lib/html.ts";
import { cabinetPage, options, type PageContext, when } from "../view.ts";

/** Orders listed, newest first. */
export const ORDERS_SHOWN = 100;

/** The account's payment wallets (never their keys), then its payment orders, newest first, filtered by status. */
export async function paymentsPage(ctx: PageContext): Promise<Response | Failure> {
  const { deps, viewer, query } = ctx;
  const status = parseStatus(query.get("status") ?? undefined);
  if (isFailure(status)) return status;
  const { wallets } = await listWallets(deps, viewer.accountId);
  const walletRows = wallets.map(
    (w) => html`<tr><td>${w.network}</td><td>${w.kind}</td><td><code>${w.fingerprint}</code></td><td>${w.next_index}</td><td>${w.unused_tail}${w.unused_tail > w.gap_limit ? html` <strong>(past the gap limit of ${w.gap_limit})</strong>` : ""}</td></tr>`,
  );
  const orders = await orderViews(deps.db, await listOrders(deps.db, viewer.accountId, { status, limit: ORDERS_SHOWN }), deps.publicUrl());
  const rows = orders.map(
    (o) => html`<tr><td><a href="/cabinet/payments/${o.payment_id}">${o.order_id}</a></td><td>${o.status}</td><td>${o.network}</td>
<td>${o.amount_received} / ${o.amount}${o.asset ? html` <code>${o.asset}</code>` : ""}</td><td>${when(o.created_at)}</td><td>${when(o.expires_at)}</td></tr>`,
  );
  return cabinetPage(
    ctx,
    "payments",
    "Payment orders",
    html`<section aria-labelledby="wallets-h"><h2 id="wallets-h">Wallets</h2>
${
  wallets.length === 0
    ? html`<p>No payment wallets. With one, orders created without an address get a fresh address derived from the wallet's extended public key (PUT /v1/payments/wallets/{network}).</p>`
    : html`<div class="scroll"><table><thead><tr><th scope="col">Network</th><th scope="col">Kind</th><th scope="col">Fingerprint</th><th scope="col">Next index</th><th scope="col">Unused tail</th></tr></thead><tbody>${walletRows}</tbody></table></div>`
}</section>
<h2>Orders</h2>
<form method="get" action="/cabinet/payments"><label for="f-status">Status</label>
<select id="f-status" name="status">${options([["", "any"], ...PAYMENT_STATUSES.map((s) => [s, s] as const)], status ?? "")}</select>
<button type="submit" class="secondary">Filter</button></form>
${
  orders.length === 0
    ? html`<p>No payment orders${status ? ` with status ${status}` : ""}. Orders are created through the API (POST /v1/payments).</p>`
    : html`<div class="scroll"><table><thead><tr><th scope="col">Order</th><th scope="col">Status</th><th scope="col">Network</th><th scope="col">Received / amount</th><th scope="col">Created</th><th scope="col">Expires</th></tr></thead><tbody>${rows}</tbody></table></div>`
}`,
  );
}

/** One order and its lifecycle as a timeline; another account's order is not found. */
export async function paymentPage(ctx: PageContext, paymentId: string): Promise<Response | Failure> {
  const { deps, viewer } = ctx;
  const found = await getPaymentOrder(deps, viewer.accountId, paymentId);
  if (!found.ok) return found;
  const o = found.order;
  const steps = await orderTimeline(deps.db, viewer.accountId, paymentId);
  return cabinetPage(
    ctx,
    "payments",
    `Order ${o.order_id}`,
    html`<dl class="stats">
<div><dt>Status</dt><dd>${o.status}</dd></div>
<div><dt>Amount</dt><dd>${o.amount}</dd></div>
<div><dt>Received</dt><dd>${o.amount_received}</dd></div>
<div><dt>Network</dt><dd>${o.network}</dd></div>
</dl>
<section><p>Payment id <code>${o.payment_id}</code>; pay to <code>${o.address}</code>${o.derivation_index === null ? "" : html` (index ${o.derivation_index} of the payment wallet)`}${o.asset ? html` in token <code>${o.asset}</code>` : " in the native coin"}; expires ${when(o.expires_at)}.</p>
${o.late_payments.length === 0 ? "" : html`<p>Late payments, after the order ended: ${o.late_payments.map((l, i) => html`${i > 0 ? "; " : ""}${l.amount} in tx <code>${l.tx_hash}</code> (block ${l.block_height})`)}.</p>`}
<p>The payer's page: <a href="${o.checkout_url}"><code>${o.checkout_url}</code></a></p>
${o.aml ? html`<p>AML: risk <strong>${o.aml.risk_level}</strong>, score ${o.aml.score}${o.aml.address_label ? html`, ${o.aml.address_label}` : ""}.</p>` : ""}</section>
<section aria-labelledby="tl-h"><h2 id="tl-h">Lifecycle</h2><ol class="timeline">
<li><strong>pending</strong> · created ${when(o.created_at)}</li>
${steps.map(
  (s) => html`<li><strong>${s.state}</strong>${s.removed ? " (taken back: its block was orphaned)" : ""} · ${when(s.at)}${s.tx_hash ? html` · tx <code>${s.tx_hash}</code>` : ""}<br><span class="muted">webhook <a href="/cabinet/deliveries/${s.delivery.id}">${s.delivery.id}</a>: ${s.delivery.status}, ${s.delivery.attempts} attempt(s)</span></li>`,
)}</ol></section>
<p><a href="/cabinet/payments">All orders</a></p>`,
  );
}
