// The payment-order state machine (docs/payments.md) as pure functions over data. The orders service
// persists the last state returned and queues a webhook for each returned state `statesToAnnounce`
// keeps, in order.

export type PaymentStatus = "pending" | "seen" | "underpaid" | "aml_check" | "paid" | "failed" | "expired";

export type RiskLevel = "low" | "medium" | "high" | "severe";

export type LifecycleInput =
  /** An incoming movement to the order's address was ingested (confirmed or not). */
  | { kind: "movement_seen" }
  /** Re-evaluation after a block: sum of confirmed incoming movements. */
  | { kind: "confirmed_total"; confirmedRaw: bigint; amountRaw: bigint }
  /** The AML screening of the completing sender finished. */
  | { kind: "screening_done"; riskLevel: RiskLevel; failLevels: readonly RiskLevel[] }
  /** now >= expires_at. */
  | { kind: "expiry_due" }
  /** A reorg orphaned payments of the order; `receivedRaw` is what still arrived on the canonical chain. */
  | { kind: "payments_orphaned"; receivedRaw: bigint };

/** The states no input moves an order out of: it takes no more payments, and its address is free for a new order. */
export const TERMINAL_STATUSES: readonly PaymentStatus[] = ["paid", "failed", "expired"];

const TERMINAL: ReadonlySet<PaymentStatus> = new Set<PaymentStatus>(TERMINAL_STATUSES);

/** Whether no input can move an order out of this state (paid, failed, expired). */
export function isTerminal(s: PaymentStatus): boolean {
  return TERMINAL.has(s);
}

/** The states an order moves through for one input, in order (possibly empty). E.g. pending + confirmed_total(full) → ["seen","aml_check"] because `seen` is always announced before any later state. */
export function nextStates(current: PaymentStatus, input: LifecycleInput): PaymentStatus[] {
  switch (input.kind) {
    case "movement_seen":
      // Only the first movement is news; later ones are covered by confirmed_total.
      return current === "pending" ? ["seen"] : [];
    case "confirmed_total":
      return onConfirmedTotal(current, input.confirmedRaw, input.amountRaw);
    case "screening_done":
      if (current !== "aml_check") return [];
      return input.failLevels.includes(input.riskLevel) ? ["failed"] : ["paid"];
    case "expiry_due":
      // Only pending and underpaid orders expire. `seen` means a payment is in
      // flight (broadcast, not yet confirmed); expiring it would fail a customer who paid in
      // time and is only waiting on the chain. aml_check is past the money and waits on screening.
      return current === "pending" || current === "underpaid" ? ["expired"] : [];
    case "payments_orphaned":
      // Nothing counts any more: the order waits for its money again, and expires on time. An
      // order in aml_check is past the money stage and finishes its screening.
      return input.receivedRaw <= 0n && (current === "seen" || current === "underpaid") ? ["pending"] : [];
  }
}

/**
 * The states of `entered` that get a webhook: each state is announced once per order. `pending` is
 * never announced (an order starts there, and a return to it after a reorg is silent), and a state
 * the order announced before (`seen` again after such a return) is entered silently, so a receiver
 * sees each state at most once, in lifecycle order.
 */
export function statesToAnnounce(entered: readonly PaymentStatus[], announcedBefore: ReadonlySet<PaymentStatus>): PaymentStatus[] {
  return entered.filter((s) => s !== "pending" && !announcedBefore.has(s));
}

function onConfirmedTotal(current: PaymentStatus, confirmedRaw: bigint, amountRaw: bigint): PaymentStatus[] {
  // Nothing has confirmed yet: no state change, whatever the order's state.
  if (confirmedRaw <= 0n) return [];
  const next: PaymentStatus = confirmedRaw >= amountRaw ? "aml_check" : "underpaid";
  switch (current) {
    case "pending":
      // A block can confirm a payment the mempool never showed us; `seen` still goes first
      // so merchants always receive the lifecycle in the same order.
      return ["seen", next];
    case "seen":
      return [next];
    case "underpaid":
      // Still short: staying put sends no repeated `underpaid` webhook.
      return next === "aml_check" ? ["aml_check"] : [];
    case "aml_check":
    case "paid":
    case "failed":
    case "expired":
      // Past the money stage: later payments (overpayment, late top-ups) move nothing.
      return [];
  }
}
