import { describe, expect, test } from "bun:test";
import { createMetrics } from "../../src/lib/metrics.ts";

describe("metrics histogram", () => {
  test("renders cumulative buckets, +Inf, sum and count per label set", () => {
    const m = createMetrics();
    for (const v of [0.0004, 0.002, 0.002, 30]) m.observe("chainwatch_rpc_upstream_seconds", v, { network: "eth" });
    m.observe("chainwatch_rpc_upstream_seconds", 0.07, { network: "bsc" });
    const lines = m.render().split("\n");
    expect(lines).toContain("# TYPE chainwatch_rpc_upstream_seconds histogram");
    expect(lines).toContain('chainwatch_rpc_upstream_seconds_bucket{network="eth",le="0.0005"} 1');
    expect(lines).toContain('chainwatch_rpc_upstream_seconds_bucket{network="eth",le="0.001"} 1');
    expect(lines).toContain('chainwatch_rpc_upstream_seconds_bucket{network="eth",le="0.0025"} 3');
    expect(lines).toContain('chainwatch_rpc_upstream_seconds_bucket{network="eth",le="10"} 3');
    expect(lines).toContain('chainwatch_rpc_upstream_seconds_bucket{network="eth",le="+Inf"} 4');
    expect(lines).toContain('chainwatch_rpc_upstream_seconds_count{network="eth"} 4');
    expect(lines).toContain('chainwatch_rpc_upstream_seconds_bucket{network="bsc",le="0.05"} 0');
    expect(lines).toContain('chainwatch_rpc_upstream_seconds_bucket{network="bsc",le="0.1"} 1');
    expect(lines.filter((l) => l.startsWith("# TYPE chainwatch_rpc_upstream_seconds"))).toHaveLength(1);
  });
});
