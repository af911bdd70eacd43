/** Prometheus counters, gauges and histograms kept in memory and rendered as text on /metrics. */
export type Metrics = {
  inc(name: string, labels?: Record<string, string | number>, by?: number): void;
  setGauge(name: string, value: number, labels?: Record<string, string | number>): void;
  /** Adds one observation (seconds) to a histogram with the latency buckets below. */
  observe(name: string, value: number, labels?: Record<string, string | number>): void;
  /** A counter series bound to its labels once, for hot paths: `inc` then skips rendering the labels. */
  counter(name: string, labels?: Record<string, string | number>): { inc(by?: number): void };
  /** A histogram series bound to its labels once, for hot paths. */
  histogram(name: string, labels?: Record<string, string | number>): { observe(value: number): void };
  render(): string;
};

const HELP: Record<string, string> = {
  chainwatch_http_requests_total: "HTTP requests by route, method and status.",
  chainwatch_auth_rejections_total: "Signed requests refused, by reason.",
  chainwatch_delivery_attempts_total: "Webhook delivery attempts, by outcome (succeeded, retry, failed).",
  chainwatch_deliveries_paused_total: "Deliveries paused because the account's credits could not pay for them.",
  chainwatch_webhook_endpoints_disabled_total: "Account webhooks switched off after delivery.disable_after_hours of nothing but failed attempts.",
  chainwatch_reorgs_total: "Reorgs applied by ingest (POST /ingest/blocks or a follower), by network.",
  chainwatch_deep_reorgs_total: "Reorgs deeper than the network's max_reorg_depth, refused (a follower stops until follow rewind), by network.",
  chainwatch_rpc_calls_total: "JSON-RPC calls on /rpc by network, method and outcome.",
  chainwatch_upstream_errors_total: "Failed requests to an upstream node (rpc_urls), by network and upstream.",
  chainwatch_rpc_upstream_seconds: "Time an upstream node took to answer a forwarded /rpc request, by network and upstream.",
  chainwatch_follower_node_height: "The followed node's latest block number, per network.",
  chainwatch_follower_stored_tip: "The highest stored block height of a followed network.",
  chainwatch_follower_lag: "Blocks the stored tip is behind the followed node.",
  chainwatch_deliveries: "Deliveries by state (pending, held, paused, failed), refreshed every 5 s.",
  chainwatch_delivery_oldest_due_seconds: "Seconds the most overdue pending delivery has been due (0: none waits), refreshed every 5 s.",
  chainwatch_database_bytes: "Size of the database: SQLite's file (pages × page size), PostgreSQL's pg_database_size(); refreshed every 5 s.",
  chainwatch_database_free_bytes: "SQLite: free pages inside the file, reused by later writes (retention's incremental vacuum gives them back).",
  chainwatch_database_wal_bytes: "SQLite: size of the write-ahead log file.",
  chainwatch_follower_leader: "1 while this daemon leads the network's follower, 0 while it stands by (several daemons on one database).",
};

/** Upper bounds (seconds) of the latency buckets: from a local node's sub-millisecond answer to a slow provider's timeout. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

type Histogram = { counts: number[]; sum: number; count: number };

export function createMetrics(): Metrics {
  const series = new Map<string, { type: "counter" | "gauge"; values: Map<string, number> }>();
  const histograms = new Map<string, { buckets: number[]; values: Map<string, Histogram> }>();
  const key = (labels?: Record<string, string | number>) =>
    labels
      ? Object.entries(labels)
          .map(([k, v]) => `${k}="${String(v).replace(/["\\\n]/g, "_")}"`)
          .join(",")
      : "";
  const get = (name: string, type: "counter" | "gauge") => {
    let s = series.get(name);
    if (!s) series.set(name, (s = { type, values: new Map() }));
    return s;
  };
  const withLe = (k: string, le: string) => `{${k ? `${k},` : ""}le="${le}"}`;
  const histogramSeries = (name: string, labels?: Record<string, string | number>): Histogram => {
    let h = histograms.get(name);
    if (!h) histograms.set(name, (h = { buckets: LATENCY_BUCKETS, values: new Map() }));
    const k = key(labels);
    let v = h.values.get(k);
    if (!v) h.values.set(k, (v = { counts: new Array(LATENCY_BUCKETS.length).fill(0), sum: 0, count: 0 }));
    return v;
  };
  const record = (v: Histogram, value: number) => {
    // Counts are kept per bucket and made cumulative when rendered.
    for (let i = 0; i < LATENCY_BUCKETS.length; i++) {
      if (value <= LATENCY_BUCKETS[i]) {
        v.counts[i] += 1;
        break;
      }
    }
    v.sum += value;
    v.count += 1;
  };
  return {
    inc(name, labels, by = 1) {
      const v = get(name, "counter").values;
      const k = key(labels);
      v.set(k, (v.get(k) ?? 0) + by);
    },
    setGauge(name, value, labels) {
      get(name, "gauge").values.set(key(labels), value);
    },
    observe(name, value, labels) {
      record(histogramSeries(name, labels), value);
    },
    counter(name, labels) {
      const v = get(name, "counter").values;
      const k = key(labels);
      if (!v.has(k)) v.set(k, 0);
      return { inc: (by = 1) => void v.set(k, (v.get(k) ?? 0) + by) };
    },
    histogram(name, labels) {
      const v = histogramSeries(name, labels);
      return { observe: (value) => record(v, value) };
    },
    render() {
      const out: string[] = [];
      for (const [name, s] of series) {
        if (HELP[name]) out.push(`# HELP ${name} ${HELP[name]}`);
        out.push(`# TYPE ${name} ${s.type}`);
        for (const [k, v] of s.values) out.push(`${name}${k ? `{${k}}` : ""} ${v}`);
      }
      for (const [name, h] of histograms) {
        if (HELP[name]) out.push(`# HELP ${name} ${HELP[name]}`);
        out.push(`# TYPE ${name} histogram`);
        for (const [k, v] of h.values) {
          let cumulative = 0;
          h.buckets.forEach((b, i) => {
            cumulative += v.counts[i];
            out.push(`${name}_bucket${withLe(k, String(b))} ${cumulative}`);
          });
          out.push(`${name}_bucket${withLe(k, "+Inf")} ${v.count}`);
          out.push(`${name}_sum${k ? `{${k}}` : ""} ${v.sum}`);
          out.push(`${name}_count${k ? `{${k}}` : ""} ${v.count}`);
        }
      }
      return `${out.join("\n")}\n`;
    },
  };
}
