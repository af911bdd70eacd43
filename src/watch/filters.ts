/** The flat event filter object of the address-watch webhook (docs/api.md). */
export type EventFilters = {
  payment: boolean;
  payment_networks: string[];
  payout: boolean;
  payout_networks: string[];
  block: boolean;
  block_networks: string[];
  /** Wallet and block events go out once their block has this many confirmations; 0 = at once (watch/confirmations.ts). */
  min_confirmations: number;
};

export const FILTER_KEYS = ["payment", "payment_networks", "payout", "payout_networks", "block", "block_networks", "min_confirmations"] as const;

/** The largest min_confirmations a filter accepts. */
export const MAX_MIN_CONFIRMATIONS = 1000;

/** All three kinds on, all networks, delivered at once. */
export const DEFAULT_FILTERS: EventFilters = {
  payment: true,
  payment_networks: [],
  payout: true,
  payout_networks: [],
  block: true,
  block_networks: [],
  min_confirmations: 0,
};

export type FilterPatch = Partial<EventFilters>;

/** Keys given replace those keys; keys left out keep their value. */
export function mergeFilters(current: EventFilters, patch: FilterPatch | undefined): EventFilters {
  return { ...current, ...(patch ?? {}) };
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
