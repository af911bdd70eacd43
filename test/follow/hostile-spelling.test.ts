import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Address } from "viem";
import { storedTip } from "../../src/follow/core/chain-store.ts";
import { type Anvil, startAnvil } from "../support/anvil.ts";
import { startTestDaemon, type TestDaemon } from "../support/harness.ts";
import { type Litecoind, startLitecoind } from "../support/litecoind.ts";
import { until } from "../support/poll.ts";

// Real daemons following real nodes through proxies that spell what the nodes print in capitals:
// a bech32 address (valid in either case) and a transaction hash (hex, where case carries no
// meaning). A follower hands the ingest its blocks in the one spelling a feed's blocks get, so a
// watch still matches and an event names the node's hash as a feed's would.

/** A proxy to `upstream` that passes every answer through `rewrite`. */
function rewritingProxy(upstream: string, rewrite: (text: string) => string): ReturnType<typeof Bun.serve> {
  return Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const res = await fetch(upstream, { method: "POST", headers: req.headers, body: await req.text() });
      return new Response(rewrite(await res.text()), { status: res.status, headers: { "Content-Type": "application/json" } });
    },
  });
}

const following = { confirmations: 1, follow: true, start_height: 0, poll_interval_ms: 50 };
const payments = async (td: TestDaemon, network: string) =>
  (await td.ctx.db.selectFrom("events").select("body").where("network", "=", network).where("type", "=", "payment").execute()).map((e) => JSON.parse(e.body));

describe("a btc node printing bech32 addresses in capitals", () => {
  let node: Litecoind;
  let proxy: ReturnType<typeof Bun.serve>;
  let td: TestDaemon;
  beforeAll(async () => {
    node = await startLitecoind();
    await node.createWallet("miner");
    await node.mine(101);
    // `scriptPubKey.address` or `.addresses`, whichever the node prints.
    proxy = rewritingProxy(node.bareUrl, (text) => text.replace(/"(rltc1[0-9a-z]{6,})"/g, (_m, a: string) => `"${a.toUpperCase()}"`));
    td = await startTestDaemon({
      config: {
        networks: {
          ltc: {
            family: "btc",
            decimals: 8,
            bech32_hrp: "rltc",
            p2pkh_version: 111,
            p2sh_version: 58,
            max_money: 84_000_000,
            rpc_urls: [node.url.replace(`:${node.rpcPort}`, `:${proxy.port}`)],
            ...following,
          },
        },
      },
    });
  }, 60_000);
  afterAll(async () => {
    await td?.stop();
    proxy?.stop(true);
    await node?.stop();
  });

  test("pays the watch of the address in lower case, as a feed's block in capitals would", async () => {
    const client = await td.client({ credits: 1_000_000 });
    const W = await node.newAddress("bech32");
    expect((await client.request("POST", "/v1/address-watch/addresses", { network_slug: "ltc", address: W })).status).toBe(201);
    const txid = await node.send(W, "0.5");
    const [hash] = await node.mine(1);
    const height = await node.rpc<number>("getblockcount");
    await until(async () => (await storedTip(td.ctx.db, "ltc"))?.height ?? -1, (t) => t === height, 20_000);
    expect((await payments(td, "ltc")).map((p) => [p.tx_hash, p.block_hash, p.address, p.amount])).toEqual([[txid, hash, W, "0.5"]]);
  }, 60_000);
});

describe("an evm node printing transaction hashes in capitals", () => {
  const W = "0x5e11e5e11e5e11e5e11e5e11e5e11e5e11e5e11e" as Address;
  let anvil: Anvil;
  let proxy: ReturnType<typeof Bun.serve>;
  let td: TestDaemon;
  beforeAll(async () => {
    anvil = await startAnvil();
    proxy = rewritingProxy(anvil.url, (text) => text.replace(/"hash":(\s*)"0x([0-9a-f]{64})"/g, (_m, space: string, h: string) => `"hash":${space}"0x${h.toUpperCase()}"`));
    td = await startTestDaemon({ config: { networks: { anv: { family: "evm", decimals: 18, rpc_urls: [`http://127.0.0.1:${proxy.port}`], ...following } } } });
  });
  afterAll(async () => {
    await td?.stop();
    proxy?.stop(true);
    await anvil?.stop();
  });

  test("stores the payment under the hash in lower case, as a feed's block in capitals would", async () => {
    const client = await td.client({ credits: 1_000_000 });
    expect((await client.request("POST", "/v1/address-watch/addresses", { network_slug: "anv", address: W })).status).toBe(201);
    const tx = await anvil.sendEth(anvil.accounts[0], W, 10n ** 18n);
    const height = await anvil.mined(tx);
    await until(async () => (await storedTip(td.ctx.db, "anv"))?.height ?? -1, (t) => t >= height, 20_000);
    const block = await anvil.public.getBlock({ blockNumber: BigInt(height) });
    expect((await payments(td, "anv")).map((p) => [p.tx_hash, p.block_hash, p.address, p.amount])).toEqual([[tx, block.hash, W, "1"]]);
  });
});
