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
import { type Litecoind, startLitecoind } from "../support/litecoind.ts";

// SIGKILL of a real `serve` process while it catches up 500 blocks of a real litecoind -regtest,
// then a restart: the stored tip is the checkpoint, so every block and every event is stored
// exactly once, and the spent-output index written with the blocks still finds the payout after.

const BLOCKS = 500;
// A node at some distance: the first daemon's catch-up takes long enough to be interrupted in its
// middle. The restarted one reads it near (`latencyMs` drops to 0): the resume is what is tested.
const LATENCY_MS = 25;
let latencyMs = LATENCY_MS;

let node: Litecoind;
let proxy: ReturnType<typeof Bun.serve>;
let dir: string;
let config: string;
let ctx: Context;
let W: string;
/** The block that spends some of W's coinbase outputs, its transaction, and the sum of the outputs it spends. */
let spend: { height: number; txid: string; spentRaw: bigint };
const daemons: Subprocess[] = [];

beforeAll(async () => {
  node = await startLitecoind();
  await node.createWallet("miner");
  W = await node.newAddress("bech32");
  // Every block's coinbase pays W: 500 payments, one a block.
  await node.mine(BLOCKS, W);
  // Then one transaction spending mature coinbase outputs of W (the wallet holds nothing else).
  const txid = await node.send(await node.newAddress("legacy"), "120");
  const [hash] = await node.mine(1, await node.newAddress("legacy"));
  const { hex } = await node.rpc<{ hex: string }>("gettransaction", [txid]);
  const decoded = await node.rpc<{ vin: { txid: string; vout: number }[] }>("decoderawtransaction", [hex]);
  let spentRaw = 0n;
  for (const i of decoded.vin) {
    const prev = await node.rpc<{ hex: string }>("gettransaction", [i.txid]);
    const prevTx = await node.rpc<{ vout: { value: number }[] }>("decoderawtransaction", [prev.hex]);
    spentRaw += BigInt(Math.round(prevTx.vout[i.vout].value * 1e8));
  }
  const height = (await node.rpc<{ height: number }>("getblock", [hash, 1])).height;
  spend = { height, txid, spentRaw };

  proxy = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      if (latencyMs > 0) await Bun.sleep(latencyMs);
      return fetch(node.bareUrl, { method: "POST", headers: req.headers, body: await req.text() });
    },
  });
  const proxied = node.url.replace(`:${node.rpcPort}`, `:${proxy.port}`);
  dir = mkdtempSync(join(tmpdir(), "chainwatch-btc-catchup-"));
  config = writeToml(dir, [
    "[billing]",
    "enabled = false",
    "[networks.ltc]",
    'family = "btc"',
    "decimals = 8",
    "confirmations = 6",
    'bech32_hrp = "rltc"',
    "p2pkh_version = 111",
    "p2sh_version = 58",
    `rpc_urls = ["${proxied}"]`,
    "follow = true",
    "start_height = 0",
    "poll_interval_ms = 100",
  ]);
  const loaded = loadConfig(config);
  if (!loaded.ok) throw new Error(loaded.error);
  ctx = await openContext(loaded.config, { env: {} });
  const plan = await setPlan(ctx.db, ctx.clock, { name: "p", slots: 5 });
  if (!plan.ok) throw new Error(plan.error);
  const made = await createAccount(ctx, { name: "catcher", plan: "p" });
  if (!made.ok) throw new Error(made.error);
  const watched = await addWatch(ctx.db, { accountId: made.account.id, network: "ltc", address: W, now: Date.now() });
  if (!watched.ok) throw new Error("watch refused");
}, 60_000);
afterAll(async () => {
  for (const p of daemons) {
    if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
    await p.exited;
  }
  await ctx?.db.destroy();
  proxy?.stop(true);
  await node?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const tip = async () => (await storedTip(ctx.db, "ltc"))?.height ?? -1;

test(
  "a daemon SIGKILLed mid catch-up of 500 litecoind blocks resumes from its stored tip: no gap, no duplicate block or event, the payout found",
  async () => {
    const first = await spawnServe(config);
    daemons.push(first);
    await until(tip, (h) => h >= 50, 30_000);
    first.kill("SIGKILL");
    await first.exited;
    expect(await tip()).toBeLessThan(spend.height);

    latencyMs = 0;
    const second = await spawnServe(config);
    daemons.push(second);
    await until(tip, (h) => h >= spend.height, 60_000);

    const blocks = await ctx.db.selectFrom("blocks").select(["height", "hash"]).where("network", "=", "ltc").orderBy("height").execute();
    expect(blocks.map((b) => Number(b.height))).toEqual(Array.from({ length: spend.height + 1 }, (_, i) => i));
    const nodeHashes: string[] = [];
    for (let h = 0; h <= spend.height; h++) nodeHashes.push(await node.rpc<string>("getblockhash", [h]));
    expect(blocks.map((b) => b.hash)).toEqual(nodeHashes);

    const bodies = (await ctx.db.selectFrom("events").select("body").where("network", "=", "ltc").where("type", "!=", "block").execute()).map((e) => JSON.parse(e.body));
    const payments = bodies.filter((b) => b.type === "payment");
    // One coinbase payment in each of blocks 1..500, each once.
    expect(payments.map((p) => p.block_height).sort((a, b) => a - b)).toEqual(Array.from({ length: BLOCKS }, (_, i) => i + 1));
    expect(new Set(payments.map((p) => p.tx_hash)).size).toBe(BLOCKS);
    const payouts = bodies.filter((b) => b.type === "payout");
    expect(payouts).toHaveLength(1);
    expect(payouts[0]).toMatchObject({ address: W, tx_hash: spend.txid, block_height: spend.height, amount_raw: spend.spentRaw.toString() });
    const blockEvents = await ctx.db.selectFrom("events").select("body").where("network", "=", "ltc").where("type", "=", "block").execute();
    expect(blockEvents.map((e) => JSON.parse(e.body).block_height).sort((a, b) => a - b)).toEqual(blocks.map((b) => Number(b.height)));

    // The follower saves its state (following, lag 0) a moment after the batch that stored the tip.
    const follower = async () => JSON.parse((await runCli(["follow", "status", "--json", "--config", config])).stdout).followers[0];
    await until(follower, (f) => f.state === "following" && f.lag === 0, 30_000);
    const status = await runCli(["follow", "status", "--json", "--config", config]);
    expect(status.code).toBe(0);
    const [ltc] = JSON.parse(status.stdout).followers;
    expect(ltc).toMatchObject({ network: "ltc", stored_tip: spend.height, node_height: spend.height, lag: 0, state: "following", last_error: null });
    expect(JSON.stringify(ltc)).not.toContain("regtestsecret");

    second.kill("SIGTERM");
    expect(await second.exited).toBe(0);
  },
  { timeout: 120_000 },
);
