import type { NetworkConfig } from "../config/schema.ts";
import { formatAmount } from "../lib/amount.ts";
import { rfc3339 } from "../lib/time.ts";
import type { CheckoutOrder } from "../payments/checkout-orders.ts";
import { paymentUri } from "./payment-uri.ts";

// What the checkout page says about an order (docs/checkout.md): a pure function of the order, its
// network's settings, the network's tip and the time. The page, its JSON and its live updates are
// all made from this one view, so they never disagree.

/**
 * The status in the payer's words. `seen` covers everything between the first payment and the
 * verdict (the order's own `seen`, an `underpaid` order whose rest has arrived but not confirmed,
 * and screening, which the page never names); the rest are the order's own.
 */
export type PublicStatus = "waiting" | "seen" | "underpaid" | "paid" | "failed" | "expired";

export type CheckoutView = {
  status: PublicStatus;
  /** No payment can change the outcome any more: paid, failed or expired. */
  final: boolean;
  network: string;
  address: string;
  /** The token contract; null for the native coin. */
  asset: string | null;
  /** What the amounts are in: the native coin's ticker, or the token's symbol ("tokens" when unknown). */
  unit: string;
  amount: string;
  received: string;
  /** What the payer should still send now: 0 once nothing more is due or the order is final. */
  amountDue: string;
  /** The payment request for `amountDue`; null when nothing is due. */
  paymentUri: string | null;
  /** Whether the request is a URI a wallet opens (a link), not a bare address (tron, generic). */
  opensWallet: boolean;
  expiresAtMs: number;
  /** Whether the deadline still matters: the order waits for money that has not arrived. */
  deadlineApplies: boolean;
  secondsLeft: number;
  confirmations: { have: number; need: number };
  description: string | null;
  /** The shop's link, shown once the order is final; null before, or when the merchant gave none. */
  redirectUrl: string | null;
  headline: string;
  /** Sentences under the headline, each one a line. */
  details: string[];
};

/** The JSON of `GET /pay/<token>.json` and of each live update: exactly these keys, in this order. */
export type CheckoutJson = {
  status: PublicStatus;
  amount: string;
  amount_due: string;
  asset: string | null;
  network: string;
  address: string;
  expires_at: string;
  payment_uri: string | null;
  confirmations: { have: number; need: number };
  redirect_url: string | null;
};

/** Native coins' tickers of the networks chainwatch ships, for a network whose table names no `symbol`. */
const SHIPPED_SYMBOLS: Record<string, string> = { eth: "ETH", bsc: "BNB", polygon: "POL", btc: "BTC", tron: "TRX", sol: "SOL" };

/** The unit amounts of `asset` are shown in on `network`. */
export function unitOf(network: string, net: NetworkConfig, asset: string | null): string {
  if (asset === null) return net.symbol ?? SHIPPED_SYMBOLS[network] ?? network.toUpperCase();
  return net.tokens[asset]?.symbol ?? "tokens";
}

/** The page's view of `order` on `net` (named `network`), with the tip its confirmations count against (null: no block stored or, under an upstream quorum, none agreed) at `nowMs`. */
export function checkoutView(order: CheckoutOrder, network: string, net: NetworkConfig, tip: number | null, nowMs: number): CheckoutView {
  const amountRaw = BigInt(order.amount_raw);
  const receivedRaw = BigInt(order.received_raw);
  const final = order.status === "paid" || order.status === "failed" || order.status === "expired";
  // Seen with nothing in a block: a payment from the mempool, whose amount counts once mined.
  // Asking for money then would ask a payer who has paid to pay again; the block will tell.
  const inMempoolOnly = order.status === "seen" && receivedRaw === 0n;
  const dueRaw = final || inMempoolOnly || order.status === "aml_check" || receivedRaw >= amountRaw ? 0n : amountRaw - receivedRaw;
  const need = net.confirmations;
  const have = confirmationsHave(order, need, tip);
  const status = publicStatus(order, dueRaw);
  const unit = unitOf(network, net, order.asset);
  const request = (raw: bigint) => paymentUri(net, { address: order.address, asset: order.asset, decimals: order.decimals, amountRaw: raw });
  const fmt = (raw: bigint) => formatAmount(raw, order.decimals);
  // Money still to come: the clock runs for it (a payment seen in time is never expired, but the rest of a short one is).
  const deadlineApplies = !final && dueRaw > 0n;
  const view: Omit<CheckoutView, "headline" | "details"> = {
    status,
    final,
    network,
    address: order.address,
    asset: order.asset,
    unit,
    amount: fmt(amountRaw),
    received: fmt(receivedRaw),
    amountDue: fmt(dueRaw),
    paymentUri: dueRaw > 0n ? request(dueRaw) : null,
    opensWallet: request(amountRaw) !== order.address,
    expiresAtMs: order.expires_at,
    deadlineApplies,
    secondsLeft: Math.max(0, Math.ceil((order.expires_at - nowMs) / 1000)),
    confirmations: { have, need },
    description: order.description,
    redirectUrl: final ? order.redirect_url : null,
  };
  return { ...view, ...words(order, view) };
}

function publicStatus(order: CheckoutOrder, dueRaw: bigint): PublicStatus {
  switch (order.status) {
    case "pending":
      return "waiting";
    case "underpaid":
      // The rest arrived and waits for its confirmations: the payer has nothing more to do.
      return dueRaw > 0n ? "underpaid" : "seen";
    case "seen":
    case "aml_check":
      return "seen";
    case "paid":
    case "failed":
    case "expired":
      return order.status;
  }
}

/**
 * Confirmations of the payment the order waits on: the newest counted payment not yet confirmed
 * (tip − its height + 1), at most `need`; all of them once every counted payment has confirmed, or
 * once the money stage is over; 0 while nothing is in a block.
 */
function confirmationsHave(order: CheckoutOrder, need: number, tip: number | null): number {
  if (order.status === "aml_check" || order.status === "paid" || order.status === "failed") return need;
  if (order.unconfirmed_height !== null) return tip === null ? 0 : Math.min(need, Math.max(0, tip - order.unconfirmed_height + 1));
  return BigInt(order.confirmed_raw) > 0n ? need : 0;
}

function words(order: CheckoutOrder, v: Omit<CheckoutView, "headline" | "details">): { headline: string; details: string[] } {
  const money = (amount: string) => `${amount} ${v.unit}`;
  const { have, need } = v.confirmations;
  switch (v.status) {
    case "waiting":
      return {
        headline: "Waiting for your payment",
        details: [`Send exactly ${money(v.amount)} on the ${v.network} network to the address below.`],
      };
    case "seen": {
      if (order.status === "aml_check")
        return { headline: "Payment confirmed, finishing up", details: ["Your payment has all its confirmations. This page changes by itself in a moment."] };
      const details =
        BigInt(order.received_raw) === 0n
          ? ["Your payment is on its way but not in a block yet. Once it is, this page shows whether the whole amount arrived, and changes by itself as it confirms."]
          : [`Received ${money(v.received)}. This page changes by itself as it confirms.`];
      if (v.amountDue !== "0") details.push(`That is less than the ${money(v.amount)} asked: ${money(v.amountDue)} is still due.`);
      return { headline: `Payment seen, waiting for confirmations (${have} of ${need})`, details };
    }
    case "underpaid":
      return {
        headline: `Underpaid: ${money(v.amountDue)} still due`,
        details: [
          `Received ${money(v.received)} of ${money(v.amount)}. Send the rest, exactly ${money(v.amountDue)}, to the same address.`,
          "A payment you have just sent shows here once it is in a block.",
        ],
      };
    case "paid":
      return { headline: "Paid. Thank you!", details: ["The shop has your payment."] };
    case "failed":
      // The reason (screening, or anything else) is the shop's to tell: the payer is sent to it.
      return { headline: "This payment could not be completed", details: ["Please contact the shop about this order."] };
    case "expired":
      return {
        headline: "This payment request has expired",
        details: ["Do not send anything to this address now.", BigInt(order.received_raw) > 0n ? "You paid part of it: contact the shop about this order." : "If you paid anyway, contact the shop."],
      };
  }
}

/** The page's JSON (and each live update) for a view. */
export function checkoutJson(v: CheckoutView): CheckoutJson {
  return {
    status: v.status,
    amount: v.amount,
    amount_due: v.amountDue,
    asset: v.asset,
    network: v.network,
    address: v.address,
    expires_at: rfc3339(v.expiresAtMs),
    payment_uri: v.paymentUri,
    confirmations: v.confirmations,
    redirect_url: v.redirectUrl,
  };
}
