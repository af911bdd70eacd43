import type { NetworkConfig } from "../../config/schema.ts";
import type { Db } from "../../db/database.ts";
import type { Clock } from "../../lib/clock.ts";
import type { Logger } from "../../lib/log.ts";
import type { UpstreamPool } from "../../upstream/pool.ts";
import { type ChainProbe, chainCheckedPool } from "../core/chain-id-guard.ts";
import type { ChainReader } from "../core/chain-reader.ts";
import type { TokenDecimals } from "../core/token-decimals.ts";
import { type FetchedBlock, ingestedBlockOf, tokenContracts } from "./block.ts";
import { createRpcClient } from "./client.ts";
import { createTokenDecimals } from "./decimals.ts";
import { chainIdOf } from "./shape.ts";
import { createEvmSource, type EvmSource } from "./source.ts";

/** EVM: `eth_chainId`; a node without it answers a JSON-RPC error. */
export const EVM_CHAIN_PROBE: ChainProbe = {
  name: "eth_chainId",
  body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
  idOf: (answer) => chainIdOf((answer as { result?: unknown } | null)?.result),
  unsupported: (answer) => (answer as { error?: unknown } | null)?.error !== undefined,
};

export type EvmReaderDeps = {
  network: string;
  source: EvmSource;
  decimals: TokenDecimals;
  /** Makes the source check its upstream's chain id again (core/chain-id-guard.ts). */
  recheckChainId?: () => void;
};

/**
 * The EVM family for the follower core: blocks with full transactions and receipts (source.ts),
 * the decimals of every token a block moves made known before it is handed on, and native values
 * and ERC-20 `Transfer` logs as the ingest's movements (block.ts).
 */
export function createEvmReader(deps: EvmReaderDeps): ChainReader<FetchedBlock> {
  const { network, source, decimals } = deps;
  return {
    head: () => source.head(),
    hashAt: (height) => source.hashAt(height),
    async read(height) {
      const fetched = await source.fetch(height);
      if (fetched) await decimals.resolve(tokenContracts(fetched.receipts));
      return fetched;
    },
    toBlock: (block) => ingestedBlockOf(network, block, decimals.decimalsOf),
    recheckChain: deps.recheckChainId,
  };
}

/**
 * An evm network's reader over its upstream pool: the follower's own view of the pool, every
 * answer from an upstream on the expected chain (`chain_id`, else the first one's), token decimals
 * from `[networks.X.tokens]`, the database, then the contract.
 */
export function evmReaderFor(network: string, n: NetworkConfig, pool: UpstreamPool, deps: { db: Db; clock: Clock; log: Logger }): ChainReader<FetchedBlock> {
  const checked = chainCheckedPool(pool, { network, chainId: n.chain_id ?? null, log: deps.log, probe: EVM_CHAIN_PROBE });
  const rpc = createRpcClient(checked);
  return createEvmReader({
    network,
    source: createEvmSource(rpc, n.traces),
    decimals: createTokenDecimals({ db: deps.db, clock: deps.clock, network, tokens: n.tokens, rpc }),
    recheckChainId: checked.recheck,
  });
}
