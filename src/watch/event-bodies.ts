import type { Family } from "../chain/family.ts";
import { tokenStandardOf } from "../chain/token-standard.ts";
import { formatAmount } from "../lib/amount.ts";
import type { WalletHit } from "./matcher.ts";

// The webhook bodies of address-watch events, also stored as the events-listing items (docs/chains.md).
// The only place they are spelled: ingest and the test deliveries both build them here.

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
  /** The network's family: which fungible token standard its tokens follow. */
  family: Family;
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
    token_standard: tokenStandardOf(hit, e.family),
    // A decimal string, uint256 as any: an NFT id often passes 2^53.
    token_id: hit.nft ? hit.nft.tokenId.toString() : null,
    amount: formatAmount(hit.value, decimalsOf(hit, e.networkDecimals)),
    amount_raw: hit.value.toString(),
    internal: hit.internal,
    created_at: e.createdAt,
    // True once a reorg orphans the block (the removed flag of Ethereum logs); see ingest/retraction.ts.
    removed: false,
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
    removed: false,
  });
}
