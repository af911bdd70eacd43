import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { storedTip } from "../../src/follow/core/chain-store.ts";
import { type FollowStatus, followStatus } from "../../src/follow/core/follow-status.ts";
import { until } from "../delivery/fixtures.ts";
import { startTestDaemon, type TestDaemon } from "../support/harness.ts";
import { type Litecoind, startLitecoind } from "../support/litecoind.ts";

// A real daemon following a real `litecoind -regtest` through a proxy that, while told to, makes
// the node claim an output worth more than Litecoin's MAX_MONEY (84 million coins, the network's
// `max_money`). A regtest chain cannot hold such an output (its whole supply is a few thousand
// coins), so the proxy puts it in the node's answer; everything else is the node's own.

let node: Litecoind;
let td: TestDaemon;
let proxy: ReturnType<typeof Bun.serve>;
/** The amount text the proxy swaps in for a 0.5 LTC output, or null to pass answers through. */
let inflate: string | null = null;

const tip = async () => (await storedTip(td.ctx.db, "ltc"))?.height ?? -1;
const status = async (): Promise<FollowStatus> => (await followStatus(td.ctx.db, td.config, td.ctx.clock.now())).find((s) => s.network === "ltc") as FollowStatus;
const payments = async () =>
  (await td.ctx.db.selectFrom("events").select("body").where("network", "=", "ltc").where("type", "=", "payment").execute()).map((e) => JSON.parse(e.body));

beforeAll(async () => {
  node = await startLitecoind();
  await node.createWallet("miner");
  await node.mine(101);
  proxy = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const res = await fetch(node.bareUrl, { method: "POST", headers: req.headers, body: await req.text() });
      const text = await res.text();
      return new Response(inflate === null ? text : text.replace(/"value":(\s*)0\.50000000\b/g, `"value":$1${inflate}`), { status: res.status });
    },
  });
  td = await startTestDaemon({
    config: {
      networks: {
        ltc: {
          family: "btc",
          decimals: 8,
          confirmations: 1,
          bech32_hrp: "rltc",
          p2pkh_version: 111,
          p2sh_version: 58,
          max_money: 84_000_000,
          rpc_urls: [node.url.replace(`:${node.rpcPort}`, `:${proxy.port}`)],
          follow: true,
          start_height: 0,
          poll_interval_ms: 50,
        },
      },
    },
  });
  const height = await node.rpc<number>("getblockcount");
  await until(tip, (t) => t >= height, 20_000);
}, 60_000);

afterAll(async () => {
  await td?.stop();
  proxy?.stop(true);
  await node?.stop();
});

describe("an output above the coin's MAX_MONEY", () => {
  test("is refused as malformed: follow status names the output and the bound, nothing of the block is stored; the true amount follows once the node says it", async () => {
    const client = await td.client({ credits: 1_000_000 });
    const W = await node.newAddress("bech32");
    expect((await client.request("POST", "/v1/address-watch/addresses", { network_slug: "ltc", address: W })).status).toBe(201);
    inflate = "84000000.00000001";
    const txid = await node.send(W, "0.5");
    const [hash] = await node.mine(1);
    const height = await node.rpc<number>("getblockcount");

    const s = await until(status, (x) => x.state === "error" && x.last_error !== null, 20_000);
    expect(s.last_error).toMatch(
      new RegExp(`^the node sent a malformed block ${height}: tx\\[\\d+\\]\\.vout\\[\\d+\\]\\.value is not an amount of at most 84000000 coins \\(\\[networks\\.ltc\\] max_money\\) \\("84000000\\.00000001"\\)$`),
    );
    expect(await tip()).toBe(height - 1);
    expect(await payments()).toEqual([]);

    inflate = null;
    await until(tip, (t) => t === height, 20_000);
    expect((await payments()).map((p) => [p.tx_hash, p.block_hash, p.address, p.amount])).toEqual([[txid, hash, W, "0.5"]]);
  }, 60_000);
});
