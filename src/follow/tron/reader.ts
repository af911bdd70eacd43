import type { NetworkConfig } from "../../config/schema.ts";
import type { Db } from "../../db/database.ts";
import type { Clock } from "../../lib/clock.ts";
import type { Logger } from "../../lib/log.ts";
import type { UpstreamPool } from "../../upstream/pool.ts";
import { type ChainProbe, chainCheckedPool } from "../core/chain-id-guard.ts";
import type { ChainReader } from "../core/chain-reader.ts";
import { createDecimalsCache, type TokenDecimals } from "../core/token-decimals.ts";
import { createTronAddressBook } from "./address-book.ts";
import { ingestedBlockOf, type TronFetched, tokenContracts } from "./block.ts";
import { createTronClient, TRON_API_KEY_HEADER } from "./client.ts";
import { tronDecimalsQuery } from "./decimals.ts";
import { createTronSource, type TronSource } from "./source.ts";

const BLOCK_ID = /^[0-9a-fA-F]{64}$/;

/**
 * Tron's chain id: the last 4 bytes of the genesis block's id, which is also what java-tron's
 * `eth_chainId` answers (mainnet 0x2b6653dc = 728126428). Asked with `/wallet/getblock` for block
 * 0, header only; every node serves it, so there is no "unsupported" answer.
 */
export function tronChainProbe(apiKey: string | null): ChainProbe {
  return {
    name: "/wallet/getblock for the genesis block",
    body: JSON.stringify({ id_or_num: "0", detail: false }),
    options: { path: "/wallet/getblock", headers: apiKey ? { [TRON_API_KEY_HEADER]: apiKey } : undefined },
    idOf: (answer) => {
      const id = (answer as { blockID?: unknown } | null)?.blockID;
      return typeof id === "string" && BLOCK_ID.test(id) ? Number.parseInt(id.slice(56), 16) : null;
    },
    unsupported: () => false,
  };
}

/**
 * The Tron family for the follower core: blocks with every transaction's execution result
 * (source.ts), the decimals of every TRC-20 token a block moves made known before it is
 * handed on, and TRX and TRC-20 `Transfer` logs as the ingest's movements (block.ts).
 */
export function createTronReader(deps: { network: string; source: TronSource; decimals: TokenDecimals; recheckChain?: () => void }): ChainReader<TronFetched> {
  const { network, source, decimals } = deps;
  return {
    head: () => source.head(),
    hashAt: (height) => source.hashAt(height),
    async read(height) {
      const fetched = await source.fetch(height);
      if (fetched) await decimals.resolve(tokenContracts(fetched));
      return fetched;
    },
    toBlock: (block) => ingestedBlockOf(network, block, decimals.decimalsOf),
    recheckChain: deps.recheckChain,
  };
}

/**
 * A tron network's reader over its upstream pool: every answer from an upstream on the expected
 * chain (`chain_id`, else the first one's), with the network's API key on every request, token
 * decimals from `[networks.X.tokens]`, the database, then the contract.
 */
export function tronReaderFor(network: string, n: NetworkConfig, pool: UpstreamPool, deps: { db: Db; clock: Clock; log: Logger }): ChainReader<TronFetched> {
  const apiKey = n.api_key ?? null;
  const checked = chainCheckedPool(pool, { network, chainId: n.chain_id ?? null, log: deps.log, probe: tronChainProbe(apiKey) });
  const client = createTronClient(checked, { apiKey });
  return createTronReader({
    network,
    source: createTronSource(client, createTronAddressBook()),
    decimals: createDecimalsCache({ db: deps.db, clock: deps.clock, network, tokens: n.tokens, ask: tronDecimalsQuery(client) }),
    recheckChain: checked.recheck,
  });
}
