import type { BlockInput, TransactionInput } from "../ingest/batch-schema.ts";
import type { IngestedBlock, IngestedTx, Movement } from "../ingest/ingest-service.ts";
import { formatAmount, parseRawInteger } from "../lib/amount.ts";
import type { Family } from "./address.ts";

// Pure matching of chain activity against watched addresses (DESIGN §4): no I/O, no clock.

const BECH32_PREFIX = /^(bc1|tb1)/i;

/**
 * A feed address in the form watches are stored in (normalizeAddress): evm lower-case, btc
 * bech32 lower-case, everything else as given. No validation: an indexer may send anything, and
 * an invalid address simply never matches a watch.
 */
export function matchAddress(family: Family, address: string | null | undefined): string | null {
  if (address === null || address === undefined) return null;
  if (family === "evm") return address.toLowerCase();
  if (family === "btc" && BECH32_PREFIX.test(address)) return address.toLowerCase();
  return address;
}

/**
 * The movements of a transaction: index 0 is the native value, i+1 is transfers[i]. A zero native
 * value is no movement (a plain contract call moves nothing); a zero-value transfer is one, and
 * gives `other` hits. The schema has already checked every value is an integer string.
 */
export function movementsOf(tx: TransactionInput, family: Family): Movement[] {
  const movements: Movement[] = [];
  const value = parseRawInteger(tx.value) ?? 0n;
  if (value > 0n) {
    movements.push({ index: 0, asset: null, from: matchAddress(family, tx.from), to: matchAddress(family, tx.to), value, decimals: null });
  }
  tx.transfers?.forEach((t, i) => {
    movements.push({
      index: i + 1,
      asset: matchAddress(family, t.asset),
      from: matchAddress(family, t.from),
      to: matchAddress(family, t.to),
      value: parseRawInteger(t.value) ?? 0n,
      decimals: t.decimals ?? null,
    });
  });
  return movements;
}

/** A validated block in matching form: addresses normalized, values as bigint. */
export function toIngestedBlock(b: BlockInput, family: Family): IngestedBlock {
  return {
    network: b.network,
    height: b.height,
    hash: b.hash,
    parentHash: b.parent_hash ?? null,
    timestamp: b.timestamp ?? null,
    transactions: b.transactions.map((tx) => ({
      hash: tx.hash,
      from: matchAddress(family, tx.from),
      to: matchAddress(family, tx.to),
      movements: movementsOf(tx, family),
    })),
  };
}

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
  const touched = new Set<string>();
  for (const m of tx.movements) {
    const moved = m.value > 0n;
    if (m.to !== null) {
      touched.add(m.to);
      for (const watch of watchesAt(m.to) ?? []) hits.push(hitOf(watch, m, "in", moved ? "payment" : "other"));
    }
    if (m.from !== null) {
      touched.add(m.from);
      for (const watch of watchesAt(m.from) ?? []) hits.push(hitOf(watch, m, "out", moved ? "payout" : "other"));
    }
  }
  const named: [string | null, Direction][] = [[tx.from, "out"], [tx.to === tx.from ? null : tx.to, "in"]];
  for (const [address, direction] of named) {
    if (address === null || touched.has(address)) continue;
    for (const watch of watchesAt(address) ?? []) {
      hits.push({ watch, movement: 0, direction, type: "other", asset: null, value: 0n, decimals: null });
    }
  }
  return hits;
}

function hitOf(watch: WatchRef, m: Movement, direction: Direction, type: HitType): WalletHit {
  return { watch, movement: m.index, direction, type, asset: m.asset, value: m.value, decimals: m.decimals };
}

/** Makes one event per (watch, transaction, movement, direction). */
export function walletDedupeKey(hit: WalletHit, txHash: string): string {
  return `${hit.watch.id}:${txHash}:${hit.movement}:${hit.direction}`;
}

/** Makes one block event per (network, block); it is stored once and shared by every watching account. */
export function blockDedupeKey(network: string, blockHash: string): string {
  return `block:${network}:${blockHash}`;
}

/**
 * Decimals an amount is formatted with: the transfer's own, else the network's for the native
 * asset, else 0 (a token whose decimals the indexer did not send is shown in raw units).
 */
export function decimalsOf(hit: Pick<WalletHit, "asset" | "decimals">, networkDecimals: number): number {
  return hit.decimals ?? (hit.asset === null ? networkDecimals : 0);
}

/** The flat wallet-event body (webhook body and events-listing item), keys in contract order. */
export function walletEventBody(e: {
  id: string;
  hit: WalletHit;
  network: string;
  txHash: string;
  blockHeight: number;
  blockHash: string;
  networkDecimals: number;
  /** RFC 3339, formatted once per batch. */
  createdAt: string;
}): string {
  const { hit } = e;
  return JSON.stringify({
    id: e.id,
    type: hit.type,
    direction: hit.direction,
    watch_id: hit.watch.id,
    network: e.network,
    address: hit.watch.address,
    tx_hash: e.txHash,
    block_height: e.blockHeight,
    block_hash: e.blockHash,
    asset: hit.asset,
    amount: formatAmount(hit.value, decimalsOf(hit, e.networkDecimals)),
    amount_raw: hit.value.toString(),
    created_at: e.createdAt,
  });
}

/** The flat block-event body (webhook body and events-listing item), keys in contract order. */
export function blockEventBody(e: { id: string; network: string; height: number; hash: string; transactions: readonly string[]; createdAt: string }): string {
  return JSON.stringify({
    id: e.id,
    type: "block",
    network: e.network,
    block_height: e.height,
    block_hash: e.hash,
    tx_count: e.transactions.length,
    transactions: e.transactions,
    created_at: e.createdAt,
  });
}
