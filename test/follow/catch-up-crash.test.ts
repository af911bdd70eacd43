import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Address } from "viem";
import type { Context } from "../../src/daemon.ts";
import { storedTip } from "../../src/follow/core/chain-store.ts";
import { followedNetworkToml, openWithWatcher } from "./support.ts";
import { runCli, spawnServe, until, writeToml } from "../delivery/fixtures.ts";
import { type Anvil, startAnvil } from "../support/anvil.ts";

// SIGKILL of a real `serve` process while it catches up 500 blocks, then a restart: the stored tip
// is the checkpoint, so every block and every event is stored exactly once.

const BLOCKS = 500;
const W = "0x00000000000000000000000000000000000c0de5" as Address;
let anvil: Anvil;
let dir: string;
let config: string;
let ctx: Context;
const daemons: Subprocess[] = [];

beforeAll(async () => {
  anvil = await startAnvil();
  // One payment to W in each of 500 blocks, mined by hand (automine may pack several into one).
  await anvil.test.setAutomine(false);
  for (let i = 1; i <= BLOCKS; i++) {
    await anvil.sendEth(anvil.accounts[1], W, BigInt(i));
    await anvil.test.mine({ blocks: 1 });
  }
  dir = mkdtempSync(join(tmpdir(), "chainwatch-catchup-"));
  config = writeToml(dir, [
    "[billing]",
    "enabled = false",
    ...followedNetworkToml(anvil.url, { pollMs: 100 }),
  ]);
  ({ ctx } = await openWithWatcher(config, { name: "catcher", address: W }));
});
afterAll(async () => {
  for (const p of daemons) {
    if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
    await p.exited;
  }
  await ctx.db.destroy();
  await anvil.stop();
  rmSync(dir, { recursive: true, force: true });
});

const tip = async () => (await storedTip(ctx.db, "anv"))?.height ?? -1;

test(
  "a daemon SIGKILLed mid catch-up resumes from its stored tip: no gap, no duplicate block or event",
  async () => {
    const head = Number(await anvil.public.getBlockNumber());
    expect(head).toBe(BLOCKS);

    const first = await spawnServe(config);
    daemons.push(first);
    await until(tip, (h) => h >= 50, 30_000);
    first.kill("SIGKILL");
    await first.exited;
    const killedAt = await tip();
    expect(killedAt).toBeLessThan(head);

    // Killed without a word: status shows the follower stopped once its report goes stale, but
    // right now it reads the last report of a follower that was catching up.
    const second = await spawnServe(config);
    daemons.push(second);
    await until(tip, (h) => h >= head, 30_000);

    const blocks = await ctx.db.selectFrom("blocks").select(["height", "hash"]).where("network", "=", "anv").orderBy("height").execute();
    expect(blocks.map((b) => Number(b.height))).toEqual(Array.from({ length: head + 1 }, (_, i) => i));
    const payments = await ctx.db.selectFrom("events").select("body").where("network", "=", "anv").where("type", "=", "payment").execute();
    const amounts = payments.map((p) => JSON.parse(p.body).amount_raw).sort((a, b) => Number(a) - Number(b));
    expect(amounts).toEqual(Array.from({ length: BLOCKS }, (_, i) => String(i + 1)));
    const blockEvents = await ctx.db.selectFrom("events").select("body").where("network", "=", "anv").where("type", "=", "block").execute();
    expect(blockEvents.map((e) => JSON.parse(e.body).block_height).sort((a, b) => a - b)).toEqual(blocks.map((b) => Number(b.height)));

    // The follower saves its state (following, lag 0) a moment after the batch that stored the tip.
    const follower = async () => JSON.parse((await runCli(["follow", "status", "--json", "--config", config])).stdout).followers[0];
    await until(follower, (f) => f.state === "following", 30_000);
    const status = await runCli(["follow", "status", "--json", "--config", config]);
    expect(status.code).toBe(0);
    const [anv] = JSON.parse(status.stdout).followers;
    expect(anv).toMatchObject({ network: "anv", upstream: anvil.url, stored_tip: head, state: "following", last_error: null });
    expect(anv.node_height).toBeGreaterThanOrEqual(head);

    second.kill("SIGTERM");
    expect(await second.exited).toBe(0);
    const after = JSON.parse((await runCli(["follow", "status", "--json", "--config", config])).stdout).followers[0];
    expect(after).toMatchObject({ network: "anv", state: "stopped", blocks_per_second: 0, stored_tip: head });
  },
  { timeout: 90_000 },
);
