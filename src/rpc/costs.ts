import type { Config } from "../config/schema.ts";

const BLOCK_READS = new Set(["eth_getBlockByNumber", "eth_getBlockByHash"]);

/**
 * Credits one successful call of `method` on `network` costs (docs/rpc.md): `[rpc.costs]` of the
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

/**
 * Credits a node's answer adds by its size (docs/rpc.md): one per whole
 * `[rpc] response_bytes_per_credit` bytes (1 MiB by default; 0 turns it off), charged once per
 * forwarded request on top of its calls' prices. Answers under that size add nothing; the largest,
 * at `max_response_bytes`, add 32 with the defaults. Free when billing is off.
 */
export function rpcAnswerCost(config: Config, bytes: number): number {
  const per = config.rpc.response_bytes_per_credit;
  if (!config.billing.enabled || per === 0) return 0;
  return Math.floor(bytes / per);
}
