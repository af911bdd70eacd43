import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Address, Hash } from "viem";
import type { Context } from "../../src/daemon.ts";
import { storedTip } from "../../src/follow/core/chain-store.ts";
import { followStatus } from "../../src/follow/core/follow-status.ts";
import { runCli, until, writeToml } from "../delivery/fixtures.ts";
import { type Anvil, startAnvil } from "../support/anvil.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import { followedNetworkToml, openWithWatcher, type ServeProcess, spawnLoggedServe } from "./support.ts";

// A reorg deeper than max_reorg_depth (2): the follower stops with a clear error, counts it and
// waits; `follow rewind` from the CLI (another process) sets it going again on the new chain.

const W = "0x00000000000000000000000000000000000d11e5" as Address;
let anvil: Anvil;
let dir: string;
let config: string;
let ctx: Context;
let sink: WebhookSink;
let serve: ServeProcess | null = null;

beforeAll(async () => {
  anvil = await startAnvil();
  sink = startWebhookSink();
  dir = mkdtempSync(join(tmpdir(), "chainwatch-deep-reorg-"));
  config = writeToml(dir, [
    "[billing]",
    "enabled = false",
    "[delivery]",
    "allow_private_targets = true",
    ...followedNetworkToml(anvil.url, { pollMs: 100, maxReorgDepth: 2 }),
  ]);
  ({ ctx } = await openWithWatcher(config, { name: "deep", address: W, webhookUrl: sink.url }));
});
afterAll(async () => {
  if (serve && serve.proc.exitCode === null) serve.proc.kill("SIGKILL");
  await serve?.proc.exited;
  await ctx.db.destroy();
  await sink.stop();
  await anvil.stop();
  rmSync(dir, { recursive: true, force: true });
});

const tip = async () => (await storedTip(ctx.db, "anv"))?.height ?? -1;
const status = async () => {
  const out = await runCli(["follow", "status", "--json", "--config", config]);
  expect(out.code).toBe(0);
  return JSON.parse(out.stdout).followers[0] as Record<string, unknown>;
};
/** The same report read in-process, to wait on: polling the CLI would start a process for every read. */
const reported = async () => (await followStatus(ctx.db, ctx.config, Date.now()))[0];

test(
  "a reorg deeper than max_reorg_depth stops the follower with an error until follow rewind",
  async () => {
    await anvil.rpc("anvil_mine", ["0x6"]);
    serve = await spawnLoggedServe(config);
    await until(tip, (h) => h >= 6, 20_000);

    // Three blocks replaced, one of them now paying W: deeper than the allowed 2.
    await anvil.rpc("anvil_reorg", [3, [[{ from: anvil.accounts[0], to: W, value: "0x2a" }, 0]]]);
    await until(reported, (s) => s.state === "error", 20_000);
    const stopped = await status();
    expect(stopped.last_error).toBe("reorg deeper than max_reorg_depth (2) below height 6; run: chainwatch follow rewind anv --to <height>");
    expect(stopped.stored_tip).toBe(6);
    // The node's head as the follower last read it: anvil drops the three blocks before it mines
    // their replacements, so a poll in between reads a lower head.
    expect(stopped.node_height as number).toBeGreaterThanOrEqual(3);
    expect(stopped.node_height as number).toBeLessThanOrEqual(6);
    // The state is read from the database; the log line comes through the process's stdout, which
    // this test reads on its own schedule.
    const stoppedLines = () => (serve as ServeProcess).lines.filter((l) => l.msg === "deep reorg: follower stopped");
    await until(async () => stoppedLines().length, (n) => n > 0, 20_000);
    expect(stoppedLines()).toEqual([
      expect.objectContaining({ level: "error", network: "anv", stored_tip: 6, max_reorg_depth: 2 }),
    ]);
    const metrics = await (await fetch(`${serve.url}/metrics`)).text();
    expect(metrics).toContain('chainwatch_deep_reorgs_total{network="anv"} 1');
    // Stopped means stopped: new blocks on the node are not read.
    await anvil.rpc("anvil_mine", ["0x1"]);
    await until(reported, (s) => s.node_height === 6 || s.node_height === 7, 20_000);
    expect(await tip()).toBe(6);

    const rewind = await runCli(["follow", "rewind", "anv", "--to", "3", "--json", "--config", config]);
    expect(rewind.code).toBe(0);
    expect(JSON.parse(rewind.stdout)).toMatchObject({ network: "anv", to: 3 });

    const head = Number(await anvil.public.getBlockNumber());
    await until(reported, (s) => s.state === "following" && s.stored_tip === head, 20_000);
    expect(await status()).toMatchObject({ state: "following", stored_tip: head, last_error: null });
    const newChain = await anvil.public.getBlock({ blockNumber: 4n });
    const payments = () => Promise.resolve(sink.received.map((r) => JSON.parse(r.body)).filter((b) => b.type === "payment"));
    const [payment] = await until(payments, (p) => p.length > 0, 20_000);
    expect(payment).toMatchObject({ type: "payment", address: W.toLowerCase(), amount_raw: "42", block_height: 4, block_hash: newChain.hash, tx_hash: newChain.transactions[0] as Hash });
    expect(serve.lines.some((l) => l.msg === "follower resumed" && l.network === "anv")).toBe(true);
  },
  { timeout: 90_000 },
);
