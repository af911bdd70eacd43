/**
 * The flat event filter object of a webhook endpoint (docs/api.md): which address-watch events it
 * takes, on which networks, after how many confirmations, and whether it takes payment-order
 * webhooks.
 */
export type EventFilters = {
  payment: boolean;
  payment_networks: string[];
  payout: boolean;
  payout_networks: string[];
  block: boolean;
  block_networks: string[];
  /** Wallet and block events go out once their block has this many confirmations; 0 = at once (watch/confirmations.ts). */
  min_confirmations: number;
  /** Payment-order webhooks come here while the account has no payments URL (docs/webhooks.md). */
  payment_order: boolean;
};

/** The filter keys of the address-watch webhook, in the order its GET shows them. */
export const WATCH_FILTER_KEYS = ["payment", "payment_networks", "payout", "payout_networks", "block", "block_networks", "min_confirmations"] as const;

export const FILTER_KEYS = [...WATCH_FILTER_KEYS, "payment_order"] as const;

/** The filters as `GET /v1/address-watch/webhook` shows them: without `payment_order`, which only the endpoints API shows and sets. */
export type WatchFilters = Omit<EventFilters, "payment_order">;

/** The largest min_confirmations a filter accepts. */
export const MAX_MIN_CONFIRMATIONS = 1000;

/** The address-watch webhook's defaults: all three kinds on, all networks, delivered at once. */
export const DEFAULT_FILTERS: WatchFilters = {
  payment: true,
  payment_networks: [],
  payout: true,
  payout_networks: [],
  block: true,
  block_networks: [],
  min_confirmations: 0,
};

/** A new endpoint's filters: the address-watch webhook's defaults, and payment orders taken. */
export const DEFAULT_ENDPOINT_FILTERS: EventFilters = { ...DEFAULT_FILTERS, payment_order: true };

export type FilterPatch = Partial<EventFilters>;

/** Keys given replace those keys; keys left out keep their value. */
export function mergeFilters<F extends WatchFilters>(current: F, patch: Partial<F> | undefined): F {
  return { ...current, ...(patch ?? {}) };
}

/** The address-watch webhook's view of the filters: every key but `payment_order`. */
export function watchFilters(f: EventFilters): WatchFilters {
  const { payment_order: _omitted, ...watch } = f;
  return watch;
}

/** Reads stored filters; keys missing from older rows take their defaults, unknown ones are dropped. */
export function parseStoredFilters(json: string): EventFilters {
  const stored = JSON.parse(json) as Record<string, unknown>;
  const known = Object.fromEntries(Object.entries(stored).filter(([k]) => (FILTER_KEYS as readonly string[]).includes(k)));
  return mergeFilters(DEFAULT_ENDPOINT_FILTERS, known as FilterPatch);
}

/**
 * Whether an address-watch event of `type` on `network` passes the filters. `payment` covers
 * non-block hits with direction `in` (so `other` hits inbound too), `payout` direction `out`,
 * `block` block events. A kind that is on with an empty list means every network.
 */
export function passesFilters(f: EventFilters, type: string, direction: "in" | "out" | null, network: string): boolean {
  const kind = type === "block" ? "block" : direction === "out" ? "payout" : "payment";
  if (!f[kind]) return false;
  const networks = f[`${kind}_networks`];
  return networks.length === 0 || networks.includes(network);
}
