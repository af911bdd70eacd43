import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Context, openContext } from "../../src/daemon.ts";
import { createIngestPipeline } from "../../src/ingest/pipeline.ts";
import { storedTip } from "../../src/follow/core/chain-store.ts";
import { createChainFollower } from "../../src/follow/core/chain-follower.ts";
import { createEvmReader } from "../../src/follow/evm/reader.ts";
import { createEvmSource } from "../../src/follow/evm/source.ts";
import { createRpcClient } from "../../src/follow/evm/client.ts";
import { createTokenDecimals } from "../../src/follow/evm/decimals.ts";
import type { Clock } from "../../src/lib/clock.ts";
import type { Logger } from "../../src/lib/log.ts";
import { createMetrics } from "../../src/lib/metrics.ts";
import { silentLogger } from "../../src/lib/log.ts";
import { createUpstreamPool } from "../../src/upstream/pool.ts";
import { until } from "../delivery/fixtures.ts";
import { type Anvil, startAnvil } from "../support/anvil.ts";
import { testConfig } from "../support/harness.ts";

// While more than 100 blocks behind, the follower logs its progress every 10 s. The follower's
// clock here moves 1 s each time it is read, so a 300-block catch-up spans many 10 s windows.

let anvil: Anvil;
let dir: string;
let ctx: Context;

beforeAll(async () => {
  anvil = await startAnvil();
  await anvil.rpc("anvil_mine", ["0x12c"]);
  dir = mkdtempSync(join(tmpdir(), "chainwatch-progress-"));
  ctx = await openContext(testConfig(dir, { networks: { anv: { family: "evm", rpc_urls: [anvil.url] } } }), { env: {} });
});
afterAll(async () => {
  await ctx.db.destroy();
  await anvil.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("a catch-up more than 100 blocks behind logs height, node height, blocks/s and ETA every 10 s, then stops logging", async () => {
  let t = Date.UTC(2026, 10, 23);
  const clock: Clock = { now: () => (t += 1000), monotonic: () => t };
  const lines: { msg: string; fields?: Record<string, unknown> }[] = [];
  const log: Logger = { debug: () => {}, info: (msg, fields) => void lines.push({ msg, fields }), warn: (msg, fields) => void lines.push({ msg, fields }), error: (msg, fields) => void lines.push({ msg, fields }) };
  const pool = createUpstreamPool({ network: "anv", urls: [anvil.url], timeoutMs: 5000, fetch, clock, log: silentLogger });
  const rpc = createRpcClient(pool);
  const follower = createChainFollower({
    network: "anv",
    config: { start_height: 0, poll_interval_ms: 50, max_reorg_depth: 8, max_reorgs_per_minute: 6 },
    reader: createEvmReader({
      network: "anv",
      source: createEvmSource(rpc),
      decimals: createTokenDecimals({ db: ctx.db, clock, network: "anv", tokens: {}, rpc }),
    }),
    ingest: createIngestPipeline(ctx),
    db: ctx.db,
    clock,
    log,
    metrics: createMetrics(),
    upstream: () => pool.current(),
    // Small batches: many commits, so the clock passes many 10 s marks.
    batchBlocks: 4,
  });
  follower.start();
  await until(async () => (await storedTip(ctx.db, "anv"))?.height ?? -1, (h) => h >= 300, 30_000);
  await follower.stop();

  const progress = lines.filter((l) => l.msg === "catching up").map((l) => l.fields as Record<string, number | string | null>);
  expect(progress.length).toBeGreaterThan(0);
  for (const p of progress) {
    expect(Object.keys(p)).toEqual(["network", "height", "node_height", "blocks_per_second", "eta_seconds"]);
    expect(p.network).toBe("anv");
    expect(p.node_height).toBe(300);
    // Only while more than 100 blocks behind.
    expect(300 - (p.height as number)).toBeGreaterThan(100);
    expect(p.blocks_per_second).toBeGreaterThan(0);
    expect(p.eta_seconds).toBe(Math.round((300 - (p.height as number)) / (p.blocks_per_second as number)));
  }
  expect(lines[0]).toEqual({ msg: "following", fields: { network: "anv", upstream: anvil.url, start_height: 0 } });
  const state = await ctx.db.selectFrom("follower_state").selectAll().where("network", "=", "anv").executeTakeFirstOrThrow();
  expect(state).toMatchObject({ state: "stopped", node_height: 300, last_error: null });
});
