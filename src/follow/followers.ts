import type { Config } from "../config/schema.ts";
import type { Db } from "../db/database.ts";
import type { Leadership } from "../db/leadership.ts";
import type { Metrics } from "../lib/metrics.ts";
import type { IngestService } from "../ingest/ingest-service.ts";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/log.ts";
import type { UpstreamPool } from "../upstream/pool.ts";
import type { Worker } from "../lib/worker.ts";
import { chainCheckedPool } from "./chain-id-guard.ts";
import { createEvmFollower } from "./evm-follower.ts";
import { createEvmSource } from "./evm-source.ts";
import { createRpcClient } from "./rpc-client.ts";
import { createTokenDecimals } from "./token-decimals.ts";

export type FollowersDeps = {
  config: Config;
  db: Db;
  clock: Clock;
  log: Logger;
  metrics: Metrics;
  ingest: IngestService;
  pools: Map<string, UpstreamPool>;
  /** Which daemon follows each network when several share one database. */
  leadership: Leadership;
  /** This daemon's name in `follow status` (`host:port pid N`). */
  daemonName: () => string;
};

/**
 * One follower per network with `follow = true` in each daemon; only the one leading the network
 * (docs/reference.md §10) reads and ingests, the others stand by. Each reads through the network's shared
 * upstream pool (the one /rpc uses) and writing through the one ingest service. loadConfig has
 * already refused `follow` without `rpc_urls` or on a family other than evm.
 */
export function followersFor(deps: FollowersDeps): Worker[] {
  const out: Worker[] = [];
  for (const [network, n] of Object.entries(deps.config.networks)) {
    const pool = deps.pools.get(network);
    if (!n.follow || !pool) continue;
    // The follower's own view of the pool: every answer from an upstream on the expected chain.
    const checked = chainCheckedPool(pool, { network, chainId: n.chain_id ?? null, log: deps.log });
    const rpc = createRpcClient(checked);
    out.push(
      createEvmFollower({
        network,
        config: n,
        source: createEvmSource(rpc),
        decimals: createTokenDecimals({ db: deps.db, clock: deps.clock, network, tokens: n.tokens, rpc }),
        ingest: deps.ingest,
        db: deps.db,
        clock: deps.clock,
        log: deps.log,
        metrics: deps.metrics,
        upstream: () => pool.current(),
        readAheadBytes: n.max_response_bytes,
        lead: deps.leadership.lead(network),
        daemonName: deps.daemonName,
        recheckChainId: checked.recheck,
      }),
    );
  }
  return out;
}
