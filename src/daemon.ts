import { hostname } from "node:os";
import { monthlyGrantWorker } from "./accounts/monthly-grants.ts";
import { createSnapshotCache } from "./accounts/snapshot-cache.ts";
import { createKeyStore } from "./auth/key-store.ts";
import { createClusterLimiter } from "./auth/cluster-limiter.ts";
import { createLocalRateLimiter, type RateLimiter } from "./auth/rate-limiter.ts";
import type { Config } from "./config/schema.ts";
import { dialectOfUrl, openDatabase } from "./db/database.ts";
import { sharedRateBudget, slidingRateBudget } from "./db/primitives.ts";
import { createLeadership } from "./db/leadership.ts";
import { createWakeBus } from "./db/wake-bus.ts";
import { VERSION } from "./version.ts";
import { clientIpResolver } from "./net/client-ip.ts";
import { listenFailure } from "./http/listen-failure.ts";
import { serverOptions } from "./http/server-options.ts";
import { createMetrics } from "./lib/metrics.ts";
import { createIngestPipeline } from "./ingest/pipeline.ts";
import type { Logger } from "./lib/log.ts";
import type { Worker } from "./lib/worker.ts";
import { type Resolver, systemResolver } from "./net/target-guard.ts";
import { createDeliveryLoop } from "./delivery/loop.ts";
import { walCheckpointWorker } from "./db/checkpoints.ts";
import { createCreditReservations } from "./delivery/reservations.ts";
import { newId } from "./lib/ids.ts";
import { followersFor, tracesUnsupported } from "./follow/followers.ts";
import { networkServices } from "./follow/network-service.ts";
import { createScreener } from "./payments/aml/provider.ts";
import { createAmlWorker } from "./payments/aml/worker.ts";
import { createExpiryWorker } from "./payments/expiry.ts";
import { mempoolOrders } from "./payments/mempool.ts";
import { createCreditMeter } from "./rpc/credit-meter.ts";
import { upstreamPools } from "./upstream/pool.ts";
import { createWalletDerivers } from "./payments/wallets/derivers.ts";
import { createServer, type ServerDeps } from "./server.ts";
import { createCheckoutHub } from "./checkout/hub.ts";
import { confirmationTips } from "./ingest/quorum-heights.ts";
import { publicBaseUrl } from "./net/public-url.ts";
import { type Context, poolOptions, StartupError } from "./context.ts";
import { gaugesWorker } from "./upkeep/gauges.ts";
import { retentionWorker } from "./upkeep/retention.ts";
import { createHealthWatch } from "./webhooks/health-watch.ts";


export { type Context, type ContextOptions, openContext, StartupError } from "./context.ts";

export type RunningDaemon = { url: string; port: number; deps: ServerDeps; stop(): Promise<void> };

export type DaemonOptions = {
  fallbackClientIp?: string | null;
  resolveHost?: Resolver;
  fetch?: typeof fetch;
  /** This process is the only daemon on the database (`serve` locked its SQLite file): what others left set aside goes back at start. */
  soleDaemon?: boolean;
  /**
   * SQLite: checkpoint the WAL on a thread of its own (the default, and always so for `serve`).
   * Off, SQLite's own automatic checkpoint does it on the daemon's connection, as it does should the
   * thread end; the test suite's short-lived daemons save the thread's start (~35 ms of CPU each).
   */
  walCheckpointThread?: boolean;
};

/** Builds the HTTP app and background work over a context and starts listening. */
export async function startDaemon(ctx: Context, opts: DaemonOptions = {}): Promise<RunningDaemon> {
  const { config } = ctx;
  const metrics = createMetrics();
  const resolveHost = opts.resolveHost ?? systemResolver;
  // Built once: the followers and /rpc share each network's pool, so both see the same upstream health.
  const fetchImpl = opts.fetch ?? fetch;
  const upstreams = upstreamPools(config.networks, { fetch: fetchImpl, clock: ctx.clock, log: ctx.log, metrics });
  // A traced network's node must answer the trace method: a follower that could not would miss every internal payment.
  const untraceable = await tracesUnsupported(config.networks, upstreams);
  if (untraceable) throw new StartupError(untraceable);
  // Credits promised to webhook deliveries in flight: the delivery loop holds them, and /rpc leaves them alone.
  const reservations = createCreditReservations();
  const rpcMeter = createCreditMeter({
    db: ctx.db,
    clock: ctx.clock,
    log: ctx.log,
    flushIntervalSeconds: config.rpc.flush_interval_seconds,
    slice: config.rpc.credit_slice,
    holder: `${hostname()} pid ${process.pid} ${newId("lease")}`,
    promised: (accountId) => reservations.byAccount.get(accountId) ?? 0,
  });
  await rpcMeter.reclaim(opts.soleDaemon === true);
  // SQLite: none, one daemon counts alone. PostgreSQL: per-second budgets every daemon draws from
  // (the webhooks' delivery rate limits), on a connection of their own: a claim holding a pooled
  // connection leases its slots without asking the pool for a second one (were every other pooled
  // connection waiting on rows the claim holds, it would wait for itself until connect_timeout_ms).
  const budgetDb = dialectOfUrl(config.database.url) === "postgres" ? openDatabase(config.database.url, { pool: { ...poolOptions(config), poolSize: 1 } }) : null;
  const budget = budgetDb && sharedRateBudget(budgetDb);
  // Workers first, so the dependencies that wake them are built complete.
  const delivery = createDeliveryLoop({
    ...ctx,
    reservations,
    metrics,
    fetch: fetchImpl,
    resolveHost,
    userAgent: `chainwatch/${VERSION}`,
    // The endpoints' owner keeps their health and switches off those failing too long.
    endpoints: createHealthWatch({ db: ctx.db, log: ctx.log, metrics, disableAfterHours: config.delivery.disable_after_hours }),
    rateBudget: budget,
  });
  // Several daemons on PostgreSQL: work queued here wakes the others' loops too (LISTEN/NOTIFY).
  const bus = createWakeBus({ db: ctx.db, url: config.database.url, log: ctx.log });
  bus.on("delivery", () => delivery.wake());
  const wakeDelivery = () => {
    delivery.wake();
    bus.notify("delivery");
  };
  // The checkout pages' live updates: woken after every commit that can move an order (here or,
  // through the wake bus, in another daemon), and looking every second anyway.
  const checkout = createCheckoutHub({
    db: ctx.db,
    clock: ctx.clock,
    log: ctx.log,
    networks: config.networks,
    // The confirmations a page shows count as the orders' do: against tips an upstream quorum vouched for.
    tips: (db, networks) => confirmationTips(db, config, networks),
    maxStreams: config.checkout.max_streams,
    maxStreamsPerClient: config.checkout.max_streams_per_ip,
  });
  bus.on("delivery", () => checkout.wake());
  // Every order move queues a webhook: what wakes the delivery loop for it wakes the pages too.
  const wakeAfterOrderMove = () => {
    wakeDelivery();
    checkout.wake();
  };
  // Payment orders: the AML provider loads now (a bad risk list stops start-up), expiry runs every second.
  const screener = createScreener(config.aml, { fetch: opts.fetch, resolve: resolveHost });
  if (!screener.ok) throw new StartupError(screener.error);
  const amlWorker = createAmlWorker({
    db: ctx.db,
    clock: ctx.clock,
    log: ctx.log,
    screener: screener.screener,
    failLevels: config.aml.fail_levels,
    leaseMs: config.aml.http_timeout_ms + 30_000,
    wakeDelivery: wakeAfterOrderMove,
  });
  // Background workers; each feature adds its own here.
  const workers: Worker[] = [
    retentionWorker(ctx),
    gaugesWorker({ ...ctx, metrics }),
    delivery,
    amlWorker,
    createExpiryWorker({ db: ctx.db, clock: ctx.clock, log: ctx.log, wakeDelivery: wakeAfterOrderMove }),
    checkout.worker,
    rpcMeter.worker(),
    monthlyGrantWorker({ db: ctx.db, clock: ctx.clock, log: ctx.log, wakeDelivery }),
  ];
  // SQLite: WAL checkpoints on a thread of their own, off the delivery loop's.
  if (opts.walCheckpointThread !== false) workers.push(walCheckpointWorker({ url: config.database.url, db: ctx.db, log: ctx.log }));
  // The port is known once the server listens (`port = 0` picks one); links are made after that.
  let listeningPort = config.server.port;
  const deps: ServerDeps = {
    ...ctx,
    metrics,
    keys: createKeyStore({ db: ctx.db, box: ctx.box, clock: ctx.clock }),
    snapshots: createSnapshotCache({ db: ctx.db, clock: ctx.clock }),
    // SQLite: one daemon, its own window. PostgreSQL: the window plus a sliding budget shared by every daemon.
    limiter: limiterFor(ctx),
    clientIp: clientIpResolver({ trustProxy: config.server.trust_proxy, fallback: opts.fallbackClientIp ?? null }),
    wakeDelivery,
    ingest: createIngestPipeline({
      ...ctx,
      metrics,
      // After commit: deliver the new webhooks and screen the orders that just reached aml_check.
      onCommitted: () => {
        wakeDelivery();
        amlWorker.wake();
        checkout.wake();
      },
    }),
    resolveHost,
    upstreams,
    rpcMeter,
    walletDerivers: createWalletDerivers(ctx.box),
    publicUrl: () => publicBaseUrl(config.server, listeningPort),
    checkout,
  };
  // One follower per network cluster-wide on PostgreSQL (a session advisory lock per network);
  // the daemon's name, for `follow status`, gets its port once it listens (before workers start).
  const leadership = createLeadership({
    db: ctx.db,
    url: config.database.url,
    onLost: (e) => ctx.log.warn("follower lock connection failed; its followers stand by until it is back", { error: String(e) }),
  });
  let daemonName = `${hostname()} pid ${process.pid}`;
  // A btc follower's mempool look reports to the payment orders through this port.
  workers.push(...(await followersFor({ ...ctx, metrics, ingest: deps.ingest, pools: upstreams, leadership, daemonName: () => daemonName, mempoolOrders: mempoolOrders(ctx.db) })));
  const app = createServer(deps);
  const { server, release: releaseListener } = await listen(app, config, ctx.log).catch(async (e: unknown) => {
    // The wake bus's LISTEN connection and a PostgreSQL pool would keep a failed start alive.
    await bus.close();
    await ctx.db.destroy();
    throw e instanceof StartupError ? e : new StartupError((e as Error).message ?? String(e));
  });
  listeningPort = server.port as number;
  ctx.log.info("listening", { url: server.url.href });
  // One line a network: where its blocks come from and whether /rpc serves it, so a watch on a
  // network nothing feeds is not a mystery.
  for (const n of networkServices(config)) ctx.log.info("network", n);
  daemonName = `${hostname()}:${server.port} pid ${process.pid}`;
  for (const w of workers) w.start();
  let stopped = false;
  return {
    url: server.url.href.replace(/\/$/, ""),
    port: server.port as number,
    deps,
    async stop() {
      if (stopped) return;
      stopped = true;
      // The live-update streams would hold the server open: end them, then stop accepting requests,
      // then let workers finish what is in flight.
      await checkout.worker.stop();
      await app.stop();
      releaseListener();
      await Promise.all(workers.map((w) => w.stop()));
      // After the followers wrote their last state: a standby elsewhere takes over from here.
      await leadership.close();
      await bus.close();
      await budgetDb?.destroy();
      await ctx.db.destroy();
    },
  };
}

/**
 * Starts listening, or throws: a port in use is a startup error, not a second daemon on it.
 * `release` takes back the `beforeExit` listener Elysia's listen adds to the process (it stops the
 * server when the event loop runs dry), which `app.stop()` leaves behind: it holds the whole app,
 * so every daemon a process started and stopped stayed in memory (1.3 MB each, and each full
 * collection marked it again).
 */
async function listen(app: ReturnType<typeof createServer>, config: Config, log: Logger) {
  const before = new Set(process.listeners("beforeExit"));
  let failure: unknown = null;
  try {
    app.listen(serverOptions(config, log));
  } catch (e) {
    failure = e;
  }
  // Listen is synchronous: what was added since `before` is its own, not another daemon's.
  const added = process.listeners("beforeExit").filter((l) => !before.has(l));
  const release = () => {
    for (const l of added) process.off("beforeExit", l);
  };
  if (failure !== null) {
    release();
    const { host, port } = config.server;
    throw new StartupError(listenFailure(host, port, (failure as { code?: string }).code, (failure as Error).message ?? String(failure)));
  }
  if (!app.server) {
    release();
    throw new StartupError(`cannot listen on ${config.server.host}:${config.server.port}`);
  }
  return { server: app.server, release };
}

/** The API's and /rpc's rate limiter: SQLite, one daemon and its own window; PostgreSQL, the window plus a sliding budget every daemon draws from. */
function limiterFor(ctx: Context): RateLimiter {
  const sliding = slidingRateBudget(ctx.db);
  return sliding ? createClusterLimiter({ budget: sliding, log: ctx.log, clock: ctx.clock }) : createLocalRateLimiter();
}
