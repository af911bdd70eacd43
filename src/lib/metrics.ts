/** Prometheus counters and gauges kept in memory and rendered as text on /metrics. */
export type Metrics = {
  inc(name: string, labels?: Record<string, string | number>, by?: number): void;
  setGauge(name: string, value: number, labels?: Record<string, string | number>): void;
  render(): string;
};

const HELP: Record<string, string> = {
  chainwatch_http_requests_total: "HTTP requests by route, method and status.",
  chainwatch_auth_rejections_total: "Signed requests refused, by reason.",
  chainwatch_delivery_attempts_total: "Webhook delivery attempts, by outcome (succeeded, retry, failed).",
  chainwatch_deliveries_paused_total: "Deliveries paused because the account's credits could not pay for them.",
  chainwatch_reorgs_total: "Reorgs applied by ingest (POST /ingest/blocks or a follower), by network.",
  chainwatch_deep_reorgs_total: "Reorgs deeper than the network's max_reorg_depth, refused (a follower stops until follow rewind), by network.",
  chainwatch_follower_node_height: "The followed node's latest block number, per network.",
  chainwatch_follower_stored_tip: "The highest stored block height of a followed network.",
  chainwatch_follower_lag: "Blocks the stored tip is behind the followed node.",
};

export function createMetrics(): Metrics {
  const series = new Map<string, { type: "counter" | "gauge"; values: Map<string, number> }>();
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
  return {
    inc(name, labels, by = 1) {
      const v = get(name, "counter").values;
      const k = key(labels);
      v.set(k, (v.get(k) ?? 0) + by);
    },
    setGauge(name, value, labels) {
      get(name, "gauge").values.set(key(labels), value);
    },
    render() {
      const out: string[] = [];
      for (const [name, s] of series) {
        if (HELP[name]) out.push(`# HELP ${name} ${HELP[name]}`);
        out.push(`# TYPE ${name} ${s.type}`);
        for (const [k, v] of s.values) out.push(`${name}${k ? `{${k}}` : ""} ${v}`);
      }
      return `${out.join("\n")}\n`;
    },
  };
}
