import type { Config, Family, NetworkConfig } from "../config/schema.ts";
import { rpcServesFamily } from "../rpc/method-policy.ts";

/**
 * Where a network's blocks come from: `follower`, a built-in follower reads them from the
 * network's `rpc_urls` (`follow = true`); `ingest`, only what `POST /ingest/blocks` or
 * `chainwatch ingest` is given, so a watch there sees nothing until something feeds it.
 */
export type BlocksFrom = "follower" | "ingest";

/** How this daemon serves one network: what `/v1/endpoints`, the cabinet, `follow status` and serve's start-up say. */
export type NetworkService = { network: string; family: Family; blocks_from: BlocksFrom; rpc: boolean };

/** One network's service, read off its config table alone. */
export function networkService(network: string, n: NetworkConfig): NetworkService {
  return {
    network,
    family: n.family,
    // loadConfig refuses `follow` without `rpc_urls`, so a followed network always has a follower.
    blocks_from: n.follow ? "follower" : "ingest",
    rpc: n.rpc_urls.length > 0 && rpcServesFamily(n.family),
  };
}

/** Every configured network's service, in config order. */
export function networkServices(config: Pick<Config, "networks">): NetworkService[] {
  return Object.entries(config.networks).map(([network, n]) => networkService(network, n));
}
