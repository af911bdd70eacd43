import type { ChainReader } from "../core/chain-reader.ts";
import { type FetchedBlock, toBlockInput, tokenContracts } from "./block.ts";
import type { EvmSource } from "./source.ts";
import type { TokenDecimals } from "../core/token-decimals.ts";

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
 * and ERC-20 `Transfer` logs as the ingest shape (block.ts).
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
    toInput: (block) => toBlockInput(network, block, decimals.decimalsOf),
    recheckChain: deps.recheckChainId,
  };
}
