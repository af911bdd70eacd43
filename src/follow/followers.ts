import type { Config, NetworkConfig } from "../config/schema.ts";
import { btcMoneyLimit } from "../config/networks.ts";
import type { Db } from "../db/database.ts";
import type { Lead, Leadership } from "../db/leadership.ts";
import type { Metrics } from "../lib/metrics.ts";
import type { IngestService } from "../ingest/ingest-service.ts";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/log.ts";
import type { UpstreamChoice, UpstreamPool } from "../upstream/pool.ts";
import type { Worker } from "../lib/worker.ts";
import { createBtcClient } from "./btc/client.ts";
import { createMempoolWatch, type MempoolOrders } from "./btc/mempool.ts";
import { btcReaderFor } from "./btc/reader.ts";
import { createChainFollower } from "./core/chain-follower.ts";
import type { ChainReader } from "./core/chain-reader.ts";
import { createQuorum, type Quorum } from "./core/quorum.ts";
import { readerRedactingErrors } from "./core/redacted-errors.ts";
import type { evmReaderFor } from "./evm/reader.ts";
import { tronReaderFor } from "./tron/reader.ts";

export type FollowersDeps = {
  config: Config;
  db: Db;
  clock: Clock;
  log: Logger;
  metrics: Metrics;
  ingest: IngestService;
  pools: Map<string, UpstreamPool & UpstreamChoice>;
  /** Which daemon follows each network when several share one database. */
  leadership: Leadership;
  /** This daemon's name in `follow status` (`host:port pid N`). */
  daemonName: () => string;
  /** The payment orders a btc follower's mempool look reports to (payments/). */
  mempoolOrders: MempoolOrders;
};

/** Builds an evm network's reader (evm/reader.ts). */
type EvmReaderFor = typeof evmReaderFor;

/**
 * One follower per network with `follow = true` in each daemon; only the one leading the network
 * (docs/operations.md) reads and ingests, the others stand by. Each reads through the network's
 * shared upstream pool (the one /rpc uses), with the reader of its family, and writes through the
 * one ingest service. The evm family's reader is loaded only when an evm network is followed: it
 * brings viem, about a sixth of a start's CPU from source, which a daemon following no evm chain
 * never uses.
 */
export async function followersFor(deps: FollowersDeps): Promise<Worker[]> {
  const followed = Object.entries(deps.config.networks).flatMap(([network, n]) => {
    const pool = deps.pools.get(network);
    return n.follow && pool ? [{ network, n, pool }] : [];
  });
  const evm = followed.some(({ n }) => n.family === "evm") ? (await import("./evm/reader.ts")).evmReaderFor : null;
  const out: Worker[] = [];
  for (const { network, n, pool } of followed) {
    const lead = deps.leadership.lead(network);
    out.push(
      createChainFollower({
        network,
        config: n,
        reader: readerRedactingErrors(readerFor(network, n, pool, deps, evm), pool.redact),
        ingest: deps.ingest,
        db: deps.db,
        clock: deps.clock,
        log: deps.log,
        metrics: deps.metrics,
        upstream: () => pool.current(),
        readAheadBytes: n.max_response_bytes,
        lead,
        daemonName: deps.daemonName,
        quorum: n.quorum > 1 ? quorumFor(network, n, pool, lead, deps, evm) : undefined,
      }),
    );
  }
  return out;
}

/**
 * The upstream quorum of a network with `quorum` > 1: each upstream asked on its own through its
 * family's reader (on the expected chain, its errors redacted), and the pool told to read from an
 * agreeing one when the quorum outvotes the reading one.
 */
function quorumFor(network: string, n: NetworkConfig, pool: UpstreamPool & UpstreamChoice, lead: Lead, deps: FollowersDeps, evm: EvmReaderFor | null): Quorum {
  return createQuorum({
    network,
    size: n.quorum,
    timeoutMs: n.quorum_timeout_seconds * 1000,
    confirmations: n.confirmations,
    upstreams: n.rpc_urls.map((_, i) => {
      const one = pool.only(i);
      const reader = readerRedactingErrors(familyReader(network, n, one, deps, evm), pool.redact);
      return { label: one.current(), hashAt: (height: number) => reader.hashAt(height) };
    }),
    readingIndex: () => pool.currentIndex(),
    readFrom: (index) => pool.prefer(index),
    confirm: (height, hash) => deps.ingest.confirmQuorum(network, height, hash, { fence: lead.fence }),
    db: deps.db,
    clock: deps.clock,
    log: deps.log,
  });
}

/**
 * A family's reader over `pool`, without the btc mempool look (readerFor adds it). `evm` is loaded
 * by followersFor whenever an evm network is followed.
 */
function familyReader(network: string, n: NetworkConfig, pool: UpstreamPool, deps: FollowersDeps, evm: EvmReaderFor | null): ChainReader {
  if (n.family === "tron") return tronReaderFor(network, n, pool, deps);
  if (n.family === "btc") return btcReaderFor(network, n, pool, deps);
  if (!evm) throw new Error(`the evm reader was not loaded for network ${network}`);
  return evm(network, n, pool, deps);
}

/** How a network's family is read; loadConfig has refused `follow` without `rpc_urls` or on a family with no reader. */
function readerFor(network: string, n: NetworkConfig, pool: UpstreamPool, deps: FollowersDeps, evm: EvmReaderFor | null): ChainReader {
  if (n.family !== "btc") return familyReader(network, n, pool, deps, evm);
  // At the head, a look at the mempool for payment orders waiting on their first payment.
  const limit = btcMoneyLimit(network, n);
  const mempool = createMempoolWatch({ network, client: createBtcClient(pool), limit, orders: deps.mempoolOrders, clock: deps.clock, log: deps.log, redact: pool.redact });
  return { ...btcReaderFor(network, n, pool, deps), atHead: mempool.look };
}

/**
 * The start-up error of the first followed evm network with `traces` on whose node refuses the
 * trace method (evm/traces.ts traceSupport), else null. Asked once per network, before the daemon
 * listens; a node that does not answer at all is left to the follower, which retries.
 */
export async function tracesUnsupported(networks: Config["networks"], pools: Map<string, UpstreamPool>): Promise<string | null> {
  for (const [network, n] of Object.entries(networks)) {
    const pool = pools.get(network);
    if (!n.follow || n.family !== "evm" || n.traces === "off" || !pool) continue;
    // Loaded only here, for a traced evm network (see followersFor).
    const [{ createRpcClient }, { TRACE_MAX_DEPTH, traceSupport }] = await Promise.all([import("./evm/client.ts"), import("./evm/traces.ts")]);
    const rpc = createRpcClient(pool);
    const refusal = await traceSupport(network, n.traces, (method, params) => rpc.call(method, params, { maxDepth: TRACE_MAX_DEPTH }));
    if (refusal) return pool.redact(refusal);
  }
  return null;
}
