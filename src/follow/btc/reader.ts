import type { NetworkConfig } from "../../config/schema.ts";
import { btcMoneyLimit } from "../../config/networks.ts";
import type { Logger } from "../../lib/log.ts";
import type { UpstreamPool } from "../../upstream/pool.ts";
import { type BtcFetched, ingestedBlockOf } from "./block.ts";
import { type BtcClient, createBtcClient } from "./client.ts";
import { checkChainInfo } from "./shape.ts";
import { createBtcSource, type BtcSource } from "./source.ts";
import { ChainIdMismatch } from "../core/chain-id-guard.ts";
import type { ChainReader } from "../core/chain-reader.ts";

/** Whether the node is on the expected chain; asked before the first read and again after recheck(). */
export type BtcChainCheck = {
  /** Resolves once the node's chain was found right since the last recheck(); throws ChainIdMismatch when it is not. */
  ensure(): Promise<void>;
  /** Forgets the last check: the next ensure() asks the node again. */
  recheck(): void;
};

/**
 * The chain check of a Bitcoin-family network: `getblockchaininfo`'s `chain` (main, test, regtest,
 * signet) must be `[networks.X] chain`, or, when none is configured, the chain the node answered
 * first (so a node that moved to another chain is still refused). core/chain-id-guard.ts compares
 * numeric ids per upstream; Bitcoin Core has no numeric chain id, so this asks whichever upstream
 * the pool picks, once, not on every failover: a chain change that looks like a reorg is caught by
 * the follower's recheckChain() before the reorg is believed.
 */
export function createBtcChainCheck(
  client: BtcClient,
  opts: { network: string; chain: string | null; log: Logger; upstream: () => string; redact: (text: string) => string },
): BtcChainCheck {
  let expected = opts.chain;
  let checked: Promise<void> | null = null;

  const check = async () => {
    const { chain } = checkChainInfo(await client.call("getblockchaininfo", []));
    if (expected === null) {
      expected = chain;
      // The node's word, logged: through the pool's redaction like every other (upstream/redaction.ts).
      opts.log.info("follower chain", { network: opts.network, chain: opts.redact(chain), upstream: opts.upstream() });
    }
    if (chain !== expected) {
      const source = opts.chain === null ? "the chain the follower started on" : `[networks.${opts.network}] chain`;
      throw new ChainIdMismatch(`upstream ${opts.upstream()} is on chain "${chain}", not "${expected}" (${source}); nothing it sends is stored`);
    }
  };

  return {
    ensure() {
      // One question shared by concurrent reads; a failed one is asked again on the next read.
      checked ??= check().catch((e) => {
        checked = null;
        throw e;
      });
      return checked;
    },
    recheck() {
      checked = null;
    },
  };
}

/**
 * The Bitcoin family for the follower core: blocks with every transaction's spent outpoints and
 * outputs (source.ts) as the ingest's UTXO transactions (block.ts), each read after the node's
 * chain was checked when a check is given.
 */
export function createBtcReader(deps: { network: string; source: BtcSource; chainCheck?: BtcChainCheck }): ChainReader<BtcFetched> {
  const { network, source, chainCheck } = deps;
  const checked = async <T>(read: () => Promise<T>): Promise<T> => {
    await chainCheck?.ensure();
    return read();
  };
  return {
    head: () => checked(() => source.head()),
    hashAt: (height) => checked(() => source.hashAt(height)),
    read: (height, answered) => checked(() => source.fetch(height, answered)),
    toBlock: (block) => ingestedBlockOf(network, block),
    recheckChain: chainCheck?.recheck,
  };
}

/**
 * A btc network's reader over its upstream pool (Bitcoin Core's JSON-RPC, credentials in the
 * `rpc_urls`), every read from a node on `[networks.X] chain`, else on the chain it answered first.
 */
export function btcReaderFor(network: string, n: NetworkConfig, pool: UpstreamPool, deps: { log: Logger }): ChainReader<BtcFetched> {
  const client = createBtcClient(pool);
  // Read as optional: `chain` is a btc-only key of NetworkSchema.
  const chain = (n as { chain?: string }).chain ?? null;
  return createBtcReader({
    network,
    source: createBtcSource(client, btcMoneyLimit(network, n)),
    chainCheck: createBtcChainCheck(client, { network, chain, log: deps.log, upstream: () => pool.current(), redact: pool.redact }),
  });
}
