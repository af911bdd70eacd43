import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAccount } from "../../src/accounts/accounts.ts";
import { setPlan } from "../../src/accounts/plans.ts";
import { loadConfig } from "../../src/config/load.ts";
import { type Context, openContext } from "../../src/daemon.ts";
import { storedTip } from "../../src/follow/core/chain-store.ts";
import { addWatch } from "../../src/watch/watches.ts";
import { runCli, spawnServe, until, writeToml } from "../delivery/fixtures.ts";
import { startTronNode, type TronNode, tronAddress, tronChain, type FakeTronTx } from "../support/tron-node.ts";

// SIGKILL of a real `serve` process while it catches up 500 Tron blocks from a java-tron node (the
// fake of test/support/tron-node.ts), then a restart: the stored tip is the checkpoint, so every
// block and every event is stored exactly once.

const BLOCKS = 500;
const USDT = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t";
const W = tronAddress(0xc0de5);
const SENDER = tronAddress(0x5e4d);
let node: TronNode;
let dir: string;
let config: string;
let ctx: Context;
const daemons: Subprocess[] = [];

beforeAll(async () => {
  // One payment to W in each of 500 blocks, TRX and USDT in turn.
  const txs: Record<number, FakeTronTx[]> = {};
  for (let h = 1; h <= BLOCKS; h++) {
    txs[h] = [h % 2 === 0 ? { kind: "trx", from: SENDER, to: W, amount: h } : { kind: "trc20", from: SENDER, token: USDT, to: W, value: BigInt(h) }];
  }
  node = startTronNode({ blocks: tronChain("a", 0, BLOCKS, { txs }) });
  // A node at some distance: the first daemon's catch-up takes long enough to be interrupted in
  // its middle (the restarted one reads it near, below).
  node.latencyMs = 10;
  dir = mkdtempSync(join(tmpdir(), "chainwatch-tron-catchup-"));
  config = writeToml(dir, [
    "[billing]",
    "enabled = false",
    "[networks.tron]",
    'family = "tron"',
    "decimals = 6",
    "confirmations = 19",
    `rpc_urls = ["${node.url}"]`,
    "follow = true",
    "start_height = 0",
    "poll_interval_ms = 100",
    "[networks.tron.tokens]",
    `"${USDT}" = { symbol = "USDT", decimals = 6 }`,
  ]);
  const loaded = loadConfig(config);
  if (!loaded.ok) throw new Error(loaded.error);
  ctx = await openContext(loaded.config, { env: {} });
  const plan = await setPlan(ctx.db, ctx.clock, { name: "p", slots: 5 });
  if (!plan.ok) throw new Error(plan.error);
  const made = await createAccount(ctx, { name: "catcher", plan: "p" });
  if (!made.ok) throw new Error(made.error);
  const watched = await addWatch(ctx.db, { accountId: made.account.id, network: "tron", address: W, now: Date.now() });
  if (!watched.ok) throw new Error("watch refused");
});
afterAll(async () => {
  for (const p of daemons) {
    if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
    await p.exited;
  }
  await ctx.db.destroy();
  node.stop();
  rmSync(dir, { recursive: true, force: true });
});

const tip = async () => (await storedTip(ctx.db, "tron"))?.height ?? -1;

test(
  "a daemon SIGKILLed mid catch-up of 500 Tron blocks resumes from its stored tip: no gap, no duplicate block or event",
  async () => {
    const first = await spawnServe(config);
    daemons.push(first);
    await until(tip, (h) => h >= 50, 30_000);
    first.kill("SIGKILL");
    await first.exited;
    expect(await tip()).toBeLessThan(BLOCKS);

    // The resume is what is tested here, not the distance: the rest of the chain comes at once.
    node.latencyMs = 0;
    const second = await spawnServe(config);
    daemons.push(second);
    await until(tip, (h) => h >= BLOCKS, 60_000);

    const blocks = await ctx.db.selectFrom("blocks").select(["height", "hash"]).where("network", "=", "tron").orderBy("height").execute();
    expect(blocks.map((b) => Number(b.height))).toEqual(Array.from({ length: BLOCKS + 1 }, (_, i) => i));
    expect(blocks.map((b) => b.hash)).toEqual(tronChain("a", 0, BLOCKS).map((b) => b.id));
    const payments = (await ctx.db.selectFrom("events").select("body").where("network", "=", "tron").where("type", "=", "payment").execute()).map((p) => JSON.parse(p.body));
    expect(payments.map((p) => Number(p.amount_raw)).sort((a, b) => a - b)).toEqual(Array.from({ length: BLOCKS }, (_, i) => i + 1));
    expect(payments.find((p) => p.amount_raw === "499")).toMatchObject({ asset: USDT, amount: "0.000499" });
    expect(payments.find((p) => p.amount_raw === "500")).toMatchObject({ asset: null, amount: "0.0005" });
    const blockEvents = await ctx.db.selectFrom("events").select("body").where("network", "=", "tron").where("type", "=", "block").execute();
    expect(blockEvents.map((e) => JSON.parse(e.body).block_height).sort((a, b) => a - b)).toEqual(blocks.map((b) => Number(b.height)));

    // The follower saves its state (following, lag 0) a moment after the batch that stored the tip.
    const follower = async () => JSON.parse((await runCli(["follow", "status", "--json", "--config", config])).stdout).followers[0];
    await until(follower, (f) => f.state === "following" && f.lag === 0, 30_000);
    const status = await runCli(["follow", "status", "--json", "--config", config]);
    expect(status.code).toBe(0);
    const [tron] = JSON.parse(status.stdout).followers;
    expect(tron).toMatchObject({ network: "tron", upstream: node.url, stored_tip: BLOCKS, node_height: BLOCKS, lag: 0, state: "following", last_error: null });

    second.kill("SIGTERM");
    expect(await second.exited).toBe(0);
  },
  { timeout: 120_000 },
);
