import type { SnapshotCache } from "../accounts/snapshot-cache.ts";
import type { KeyStore } from "../auth/key-store.ts";
import type { RateLimiter } from "../auth/rate-limiter.ts";
import type { Config } from "../config/schema.ts";
import type { IngestService } from "../ingest/ingest-service.ts";
import type { Db } from "../db/database.ts";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/log.ts";
import type { Resolver } from "../net/target-guard.ts";
import type { WalletDerivers } from "../payments/wallets/derivers.ts";
import type { CreditMeter } from "../rpc/credit-meter.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import type { UpstreamPool } from "../upstream/pool.ts";
import type { ClientIpResolver } from "../net/client-ip.ts";
import type { Metrics } from "../lib/metrics.ts";
import type { SignatureDeps } from "./plugins/signature.ts";
import { confirmationTips } from "../ingest/quorum-heights.ts";
import type { ReplayDeps } from "../webhooks/replay.ts";

/** Everything the HTTP edge needs, built once by the composition root (src/daemon.ts). */
export type AppDeps = {
  config: Config;
  db: Db;
  clock: Clock;
  log: Logger;
  box: SecretBox;
  metrics: Metrics;
  keys: KeyStore;
  /** GET /v1/account snapshots, at most a second old; invalidated by this process's own watch changes. */
  snapshots: SnapshotCache;
  limiter: RateLimiter;
  clientIp: ClientIpResolver;
  /** Called when work is queued, so the delivery loop runs at once instead of on its next tick. */
  wakeDelivery: () => void;
  /** The chain-hit feed behind POST /ingest/blocks (the CLI builds its own over the same code). */
  ingest: IngestService;
  /** Resolves webhook hostnames for the SSRF check; the daemon passes the system resolver, tests a table. */
  resolveHost: Resolver;
  /** One failover pool per network with `rpc_urls`, shared with the network followers. */
  upstreams: Map<string, UpstreamPool>;
  /** /rpc credits: slices of balances set aside in the database, spent in memory, charged in batches. */
  rpcMeter: CreditMeter;
  /** The payment wallets' address derivers, each wallet opened once (POST /v1/payments without an address). */
  walletDerivers: WalletDerivers;
  /** Where the daemon is reached from outside (net/public-url.ts), once it listens: orders' checkout_url starts there. */
  publicUrl: () => string;
};

/** The signature plugin's slice of the app dependencies. */
export function signatureDeps(d: AppDeps): SignatureDeps {
  return {
    keys: d.keys,
    limiter: d.limiter,
    rateLimit: d.config.rate_limit.per_key_rps,
    clock: d.clock,
    clientIp: d.clientIp,
    bodyLimit: d.config.server.body_limit_bytes,
    metrics: d.metrics,
  };
}

/** The events replay's slice: its min_confirmations hold counts against the tips an upstream quorum vouched for, as the ingest's does. */
export function replayDeps(d: AppDeps): ReplayDeps {
  return { ...d, chainTips: (db, networks) => confirmationTips(db, d.config, networks) };
}
