import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type FollowStatus, followStatus } from "../../src/follow/core/follow-status.ts";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { type Litecoind, startLitecoind } from "../support/litecoind.ts";
import { until } from "../support/poll.ts";
import { startUpstreamProxy, type UpstreamProxy } from "../support/upstream-proxy.ts";

// Upstream quorum on a real litecoind regtest node (the btc family), quorum = 2: two honest
// mirrors of the node, and a liar in front of it that names every block from the payment's height
// up by another hash (and asks the node for the real one when it is asked for a fake one), a chain
// of its own that links.

type Body = Record<string, any>;
const LTC = { family: "btc" as const, decimals: 8, confirmations: 1, bech32_hrp: "rltc", p2pkh_version: 111, p2sh_version: 58, chain: "regtest" };

let node: Litecoind;
let mirror1: UpstreamProxy;
let mirror2: UpstreamProxy;
let liar: UpstreamProxy;
const daemons: TestDaemon[] = [];
/** The liar's fake hash of each real block hash from `lieFrom` up. */
const fakes = new Map<string, string>();
let lieFrom = Number.POSITIVE_INFINITY;

/** Learns the real hashes from `lieFrom` to the node's head, each with its fake. */
async function learn(): Promise<void> {
  const count = await node.rpc<number>("getblockcount");
  for (let h = lieFrom; h <= count; h++) {
    const real = await node.rpc<string>("getblockhash", [h]);
    if (!fakes.has(real)) fakes.set(real, `${"f".repeat(8)}${real.slice(8)}`);
  }
}

/** Credentials of the node's URL on a proxy's. */
const withAuth = (proxy: UpstreamProxy) => proxy.url.replace("http://", `http://${new URL(node.url).username}:${new URL(node.url).password}@`);

beforeAll(async () => {
  node = await startLitecoind();
  await node.createWallet("miner");
  await node.mine(101);
  mirror1 = startUpstreamProxy(node.bareUrl);
  mirror2 = startUpstreamProxy(node.bareUrl);
  liar = startUpstreamProxy(
    node.bareUrl,
    async (answer) => {
      await learn();
      let out = answer;
      for (const [real, fake] of fakes) out = out.replaceAll(real, fake);
      return out;
    },
    (request) => {
      let out = request;
      for (const [real, fake] of fakes) out = out.replaceAll(fake, real);
      return out;
    },
  );
}, 60_000);

afterAll(async () => {
  for (const d of daemons) await d.stop();
  for (const p of [mirror1, mirror2, liar]) p?.stop();
  await node?.stop();
});

async function follow(urls: string[], address: string): Promise<{ td: TestDaemon; client: TestClient; paymentId: string }> {
  const td = await startTestDaemon({
    config: {
      rate_limit: { per_key_rps: 1000 },
      networks: { ltc: { ...LTC, rpc_urls: urls, follow: true, start_height: 100, poll_interval_ms: 50, max_reorg_depth: 8, quorum: 2, quorum_timeout_seconds: 600 } },
    },
  });
  daemons.push(td);
  const client = await td.client({ credits: 10_000_000 });
  expect((await client.request("POST", "/v1/address-watch/addresses", { network_slug: "ltc", address })).status).toBe(201);
  const res = await client.request("POST", "/v1/payments", { network: "ltc", order_id: `o-${daemons.length}`, amount: "1", address });
  expect(res.status).toBe(201);
  return { td, client, paymentId: ((await res.json()) as Body).payment_id };
}

const status = async (td: TestDaemon): Promise<FollowStatus> => (await followStatus(td.ctx.db, td.config, td.ctx.clock.now())).find((s) => s.network === "ltc") as FollowStatus;
const order = async (c: TestClient, id: string): Promise<Body> => (await (await c.request("GET", `/v1/payments/${id}`)).json()) as Body;

describe("upstream quorum = 2 on litecoind", () => {
  test("a block only the reading upstream names so never confirms its payment; two honest mirrors outvote it, its block is orphaned and the order pays on theirs", async () => {
    const address = await node.newAddress();
    const alone = await follow([withAuth(liar), withAuth(mirror1)], address);
    const outvoted = await follow([withAuth(liar), withAuth(mirror1), withAuth(mirror2)], address);
    const head = await node.rpc<number>("getblockcount");
    for (const d of [alone, outvoted]) await until(async () => (await status(d.td)).stored_tip ?? -1, (t) => t >= head, 20_000);
    lieFrom = head + 1;
    await node.send(address, "1");
    const [block] = await node.mine(1);
    await node.mine(2);

    const paid = await until(() => order(outvoted.client, outvoted.paymentId), (o) => o.status === "paid", 20_000);
    expect(paid).toMatchObject({ status: "paid", amount_received: "1" });
    const events = ((await (await outvoted.client.request("GET", "/v1/address-watch/events?limit=1000")).json()) as { events: Body[] }).events.filter((e) => e.type === "payment");
    // First read from the liar's block, taken back, then read again from the honest one.
    expect(events.map((e) => [e.block_hash, e.removed])).toEqual([
      [fakes.get(block), true],
      [block, false],
    ]);
    expect((await status(outvoted.td)).upstream).toBe(mirror1.url);

    // The daemon whose only other upstream disagrees has read the same blocks, and waits.
    await until(async () => (await status(alone.td)).quorum?.height ?? -1, (h) => h >= head + 1, 20_000);
    const s = await status(alone.td);
    expect(s.stored_tip).toBeGreaterThanOrEqual(head + 1);
    expect(s.upstream).toBe(liar.url);
    expect((await order(alone.client, alone.paymentId)).status).toBe("seen");
  }, 60_000);
});
