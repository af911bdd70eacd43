import type { Config } from "../config/schema.ts";

const BLOCK_READS = new Set(["eth_getBlockByNumber", "eth_getBlockByHash"]);

/**
 * Credits one successful call of `method` on `network` costs (docs/reference.md §9): `[rpc.costs]` of the
 * method when listed, else the network's `get_block_cost` for block reads, 10 for `eth_getLogs`,
 * else `[rpc.costs] default` (1 when absent). Free when billing is off.
 */
export function rpcCallCost(config: Config, network: string, method: string): number {
  if (!config.billing.enabled) return 0;
  const costs = config.rpc.costs;
  // Own keys only: a method called "constructor" must not find Object.prototype's.
  if (Object.hasOwn(costs, method)) return costs[method];
  if (BLOCK_READS.has(method)) return config.networks[network]?.get_block_cost ?? 0;
  if (method === "eth_getLogs") return 10;
  return Object.hasOwn(costs, "default") ? costs.default : 1;
}
