import type { NftToken } from "./block.ts";
import type { Family } from "./family.ts";

// Which standard a moved token follows, as wallet events name it (`token_standard`). Pure.

/** Every standard a wallet event may name; null is the native coin (or a token of a family with no standard chainwatch knows). */
export const TOKEN_STANDARDS = Object.freeze(["erc20", "erc721", "erc1155", "trc20"] as const);

export type TokenStandard = (typeof TOKEN_STANDARDS)[number];

/**
 * The fungible token standard of each family that has one: what its follower reads (ERC-20 and
 * TRC-20 `Transfer` logs), and what a feed's token transfer on such a network is unless it says
 * it moves an NFT.
 */
const FUNGIBLE: Partial<Record<Family, TokenStandard>> = { evm: "erc20", tron: "trc20" };

/** The standard of what a movement moved: its NFT's, else the family's fungible one for a token, else null (native value). */
export function tokenStandardOf(m: { asset: string | null; nft?: NftToken | null }, family: Family): TokenStandard | null {
  if (m.nft) return m.nft.standard;
  return m.asset === null ? null : (FUNGIBLE[family] ?? null);
}
