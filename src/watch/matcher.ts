import type { IngestedTx, Movement, NftToken } from "../chain/block.ts";

// Pure matching of chain activity against watched addresses (docs/chains.md): no I/O, no clock.

/** The watch a hit belongs to. */
export type WatchRef = { id: string; accountId: string; address: string };

export type HitType = "payment" | "payout" | "other";
export type Direction = "in" | "out";

/** One (watch, movement, direction) of a transaction. */
export type WalletHit = {
  watch: WatchRef;
  movement: number;
  direction: Direction;
  type: HitType;
  asset: string | null;
  value: bigint;
  decimals: number | null;
  /** The non-fungible token moved, when it is one. */
  nft: NftToken | null;
  /** Native value moved by a call inside a contract's execution. */
  internal: boolean;
};

/** Watches of one address on the block's network; undefined or empty when nobody watches it. */
export type WatchLookup = (address: string) => readonly WatchRef[] | undefined;

/**
 * Every hit of a transaction: a movement to W is `in`, from W is `out` (a self-transfer is both);
 * `payment`/`payout` when it moves value, `other` when zero. A transaction naming W as sender or
 * recipient with no movement touching W gives one `other` hit on movement 0, `out` when W sent it.
 */
export function hitsOf(tx: IngestedTx, watchesAt: WatchLookup): WalletHit[] {
  const hits: WalletHit[] = [];
  for (const m of tx.movements) {
    const moved = m.value > 0n;
    if (m.to !== null) for (const watch of watchesAt(m.to) ?? NONE) hits.push(hitOf(watch, m, "in", moved ? "payment" : "other"));
    if (m.from !== null) for (const watch of watchesAt(m.from) ?? NONE) hits.push(hitOf(watch, m, "out", moved ? "payout" : "other"));
  }
  // A UTXO transaction names no sender or recipient of its own: its movements are all there is.
  if (tx.from === null && tx.to === null) return hits;
  const touched = new Set<string>();
  for (const m of tx.movements) {
    if (m.to !== null) touched.add(m.to);
    if (m.from !== null) touched.add(m.from);
  }
  const named: [string | null, Direction][] = [[tx.from, "out"], [tx.to === tx.from ? null : tx.to, "in"]];
  for (const [address, direction] of named) {
    if (address === null || touched.has(address)) continue;
    for (const watch of watchesAt(address) ?? NONE) {
      hits.push({ watch, movement: 0, direction, type: "other", asset: null, value: 0n, decimals: null, nft: null, internal: false });
    }
  }
  return hits;
}

const NONE: readonly WatchRef[] = [];

function hitOf(watch: WatchRef, m: Movement, direction: Direction, type: HitType): WalletHit {
  return { watch, movement: m.index, direction, type, asset: m.asset, value: m.value, decimals: m.decimals, nft: m.nft ?? null, internal: m.internal === true };
}

/** Makes one event per (watch, transaction, movement, direction). */
export function walletDedupeKey(hit: WalletHit, txHash: string): string {
  return `${hit.watch.id}:${txHash}:${hit.movement}:${hit.direction}`;
}

/** Makes one block event per (network, block); it is stored once and shared by every watching account. */
export function blockDedupeKey(network: string, blockHash: string): string {
  return `block:${network}:${blockHash}`;
}
