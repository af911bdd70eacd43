import { BTC_MAX_MONEY_DEFAULT, type NetworkConfig } from "./schema.ts";

/**
 * The configured network of a slug a client or a feed sent, or undefined. Own keys only: a slug
 * such as `constructor` must not find Object.prototype's members.
 */
export function findNetwork(networks: Record<string, NetworkConfig>, slug: string): NetworkConfig | undefined {
  return Object.hasOwn(networks, slug) ? networks[slug] : undefined;
}

/** The client-facing error for a slug that names no configured network. */
export function unknownNetwork(slug: string): string {
  return `Unknown network: ${slug}`;
}

/**
 * The most one output of a btc-family network, and one transaction's outputs together, may carry,
 * in the smallest unit (`max_money` whole coins, else Bitcoin's 21 million), and the words that
 * name it in a refusal: `21000000 coins ([networks.btc] max_money)`. A node or feed saying more
 * is wrong: no valid block of the coin holds it.
 */
export function btcMoneyLimit(slug: string, n: NetworkConfig): { max: bigint; name: string } {
  const coins = n.max_money ?? BTC_MAX_MONEY_DEFAULT;
  return { max: BigInt(coins) * 10n ** BigInt(n.decimals), name: `${coins} coins ([networks.${slug}] max_money)` };
}
