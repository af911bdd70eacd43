import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load.ts";
import { type Context, openContext } from "../../src/daemon.ts";
import { saveFollowerState } from "../../src/follow/core/follower-state.ts";
import { runCli, writeToml } from "../delivery/fixtures.ts";

// `chainwatch follow status | rewind` as a user runs them, over a database no daemon is using.

let dir: string;
let config: string;
let ctx: Context;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chainwatch-follow-cli-"));
  config = writeToml(dir, [
    "[networks.anv]",
    'family = "evm"',
    'rpc_urls = ["http://127.0.0.1:1/secret-key?x=1"]',
    "follow = true",
    "[networks.quiet]",
    'family = "evm"',
    'rpc_urls = ["http://127.0.0.1:2"]',
  ]);
  const loaded = loadConfig(config);
  if (!loaded.ok) throw new Error(loaded.error);
  ctx = await openContext(loaded.config, { env: {} });
  await ctx.db
    .insertInto("blocks")
    .values([5, 6, 7].map((height) => ({ network: "anv", hash: `0x${height}`, height, parent_hash: `0x${height - 1}`, timestamp: 0, tx_count: 0, created_at: 0 })))
    .execute();
});
afterAll(async () => {
  await ctx.db.destroy();
  rmSync(dir, { recursive: true, force: true });
});

const ingestOnly = (network: string, family: string) => ({ network, family, blocks_from: "ingest", rpc: false });

test("follow status lists each followed network (never run: stopped, upstream without its path), then every network's source of blocks and /rpc", async () => {
  const out = await runCli(["follow", "status", "--json", "--config", config]);
  expect(out.code).toBe(0);
  expect(JSON.parse(out.stdout)).toEqual({
    followers: [{ network: "anv", upstream: "http://127.0.0.1:1", node_height: null, stored_tip: 7, lag: null, state: "stopped", last_error: null, blocks_per_second: 0, leader: null, quorum: null }],
    networks: [
      ingestOnly("eth", "evm"),
      ingestOnly("bsc", "evm"),
      ingestOnly("polygon", "evm"),
      ingestOnly("btc", "btc"),
      ingestOnly("tron", "tron"),
      ingestOnly("sol", "solana"),
      { network: "anv", family: "evm", blocks_from: "follower", rpc: true },
      { network: "quiet", family: "evm", blocks_from: "ingest", rpc: true },
    ],
  });
  const human = await runCli(["follow", "status", "--config", config]);
  expect(human.code).toBe(0);
  expect(human.stdout).toBe(
    [
      "NETWORK  UPSTREAM            NODE_HEIGHT  STORED_TIP  LAG  STATE    BLOCKS/S  LEADER  QUORUM  LAST_ERROR",
      "anv      http://127.0.0.1:1  -            7           -    stopped  0         -       -       -",
      "",
      "NETWORK  FAMILY  BLOCKS_FROM  RPC",
      "eth      evm     ingest       no",
      "bsc      evm     ingest       no",
      "polygon  evm     ingest       no",
      "btc      btc     ingest       no",
      "tron     tron    ingest       no",
      "sol      solana  ingest       no",
      "anv      evm     follower     /rpc/anv",
      "quiet    evm     ingest       /rpc/quiet",
      "",
    ].join("\n"),
  );
});

test("follow status shows confirmations waiting for the upstream quorum: since when, and the height asked about", async () => {
  const report = { network: "anv", upstream: "http://127.0.0.1:1", nodeHeight: 9, state: "following" as const, lastError: null, blocksPerSecond: 0, quorumWait: { since: Date.parse("2026-01-02T03:04:05Z"), height: 7 } };
  await saveFollowerState(ctx.db, report, Date.now());
  const json = JSON.parse((await runCli(["follow", "status", "--json", "--config", config])).stdout).followers[0];
  expect(json.quorum).toEqual({ waiting_since: "2026-01-02T03:04:05.000+00:00", height: 7 });
  expect((await runCli(["follow", "status", "--config", config])).stdout).toContain("waiting since 2026-01-02T03:04:05.000+00:00 (block 7)");
});

test("follow status shows a daemon's report while it is fresh, and stopped once it is stale", async () => {
  const report = { network: "anv", upstream: "http://127.0.0.1:1", nodeHeight: 9, state: "catching_up" as const, lastError: null, blocksPerSecond: 12.5, leader: "web-1:8080 pid 42" };
  await saveFollowerState(ctx.db, report, Date.now());
  const fresh = JSON.parse((await runCli(["follow", "status", "--json", "--config", config])).stdout).followers[0];
  expect(fresh).toEqual({ network: "anv", upstream: "http://127.0.0.1:1", node_height: 9, stored_tip: 7, lag: 2, state: "catching_up", last_error: null, blocks_per_second: 12.5, leader: "web-1:8080 pid 42", quorum: null });

  const longAgo = Date.UTC(2026, 0, 1);
  await saveFollowerState(ctx.db, report, longAgo);
  const stale = JSON.parse((await runCli(["follow", "status", "--json", "--config", config])).stdout).followers[0];
  expect(stale).toMatchObject({ state: "stopped", blocks_per_second: 0, leader: null, last_error: "no report from a running daemon since 2026-01-01T00:00:00.000+00:00" });

  const human = await runCli(["follow", "status", "--config", config]);
  expect(human.stdout.split("\n")[0]).toBe("NETWORK  UPSTREAM            NODE_HEIGHT  STORED_TIP  LAG  STATE    BLOCKS/S  LEADER  QUORUM  LAST_ERROR");
});

test("follow rewind forgets the blocks above --to and asks a stopped follower to resume", async () => {
  const out = await runCli(["follow", "rewind", "anv", "--to", "5", "--json", "--config", config]);
  expect(out.code).toBe(0);
  expect(JSON.parse(out.stdout)).toEqual({ network: "anv", to: 5, blocks_forgotten: 2 });
  const tip = JSON.parse((await runCli(["follow", "status", "--json", "--config", config])).stdout).followers[0].stored_tip;
  expect(tip).toBe(5);
  const row = await ctx.db.selectFrom("follower_state").select("resume_requested").where("network", "=", "anv").executeTakeFirstOrThrow();
  expect(row.resume_requested).toBe(1);
});

test.each([
  [["follow", "rewind", "nope", "--to", "1"], 1, "chainwatch: Unknown network: nope\n"],
  [["follow", "rewind", "anv", "--to", "-3"], 2, "chainwatch: --to must be a non-negative integer (see --help)\n"],
  [["follow", "rewind", "anv"], 2, null],
])("follow %p exits %p", async (args, code, stderr) => {
  const out = await runCli([...args, "--config", config]);
  expect(out.code).toBe(code);
  if (stderr !== null) expect(out.stderr).toBe(stderr);
  else expect(out.stderr).toContain("--to");
});
