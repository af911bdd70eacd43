import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { btcMoneyLimit } from "../../src/config/networks.ts";
import { createBtcClient } from "../../src/follow/btc/client.ts";
import { createMempoolWatch } from "../../src/follow/btc/mempool.ts";
import { storedTip } from "../../src/follow/core/chain-store.ts";
import { type FollowStatus, followStatus } from "../../src/follow/core/follow-status.ts";
import type { Logger } from "../../src/lib/log.ts";
import { mempoolOrders } from "../../src/payments/mempool.ts";
import { type Anvil, startAnvil } from "../support/anvil.ts";
import { startTestDaemon, type TestDaemon } from "../support/harness.ts";
import { type HostileNode, startHostileNode } from "../support/hostile-node.ts";
import { until } from "../support/poll.ts";
import { startTronNode, type TronNode, tronChain } from "../support/tron-node.ts";

// Followers of every family reading from a node whose answers nest too deep, or whose errors
// echo what the node was sent (the URL's credentials and key, the API key): a deep answer is an
// upstream error like any other (failed over, shown in follow status), and no secret the node
// echoes reaches follow status or a log line.

type Line = { level: string; msg: string; fields?: Record<string, unknown> };

/** A logger keeping every line. */
function capture(): Logger & { lines: Line[] } {
  const lines: Line[] = [];
  const at = (level: string) => (msg: string, fields?: Record<string, unknown>) => void lines.push({ level, msg, fields });
  return { lines, debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

const following = { confirmations: 1, follow: true, start_height: 0, poll_interval_ms: 50 };
const evm = (urls: string[]) => ({ family: "evm", decimals: 18, rpc_urls: urls, ...following });
const btc = (urls: string[]) => ({ family: "btc", decimals: 8, rpc_urls: urls, ...following });
const tron = (urls: string[], extra: Record<string, unknown> = {}) => ({ family: "tron", decimals: 6, rpc_urls: urls, ...following, ...extra });

const statusOf = async (d: TestDaemon, network: string): Promise<FollowStatus> =>
  (await followStatus(d.ctx.db, d.config, d.ctx.clock.now())).find((s) => s.network === network) as FollowStatus;

let node: HostileNode;
let td: TestDaemon | null = null;
beforeAll(() => {
  node = startHostileNode();
});
afterEach(async () => {
  await td?.stop();
  td = null;
});
afterAll(() => node?.stop());

describe("an answer nested deeper than 64 levels", () => {
  let anvil: Anvil;
  beforeAll(async () => {
    anvil = await startAnvil();
    await anvil.rpc("anvil_mine", ["0x3"]);
  });
  afterAll(async () => {
    await anvil?.stop();
  });

  test("is an upstream error: the evm follower fails over to the next upstream and follows it", async () => {
    td = await startTestDaemon({ config: { networks: { deep: evm([`${node.url}/100000/deep`, anvil.url]) } } });
    const d = td;
    await until(async () => (await storedTip(d.ctx.db, "deep"))?.height ?? -1, (h) => h === 3);
    expect(d.daemon.deps.upstreams.get("deep")?.states()[0]).toMatchObject({ errors: expect.any(Number), lastError: "answered with JSON nested deeper than 64 levels" });
    expect(d.daemon.deps.upstreams.get("deep")?.states()[0].errors).toBeGreaterThan(0);
  });

  test.each([
    ["evm", evm],
    ["btc", btc],
    ["tron", tron],
  ] as const)("%s: with no other upstream, follow status shows the error and nothing is stored", async (_, family) => {
    td = await startTestDaemon({ config: { networks: { deep: family([`${node.url}/65/deep`]) } } });
    const d = td;
    const s = await until(() => statusOf(d, "deep"), (x) => x.state === "error");
    expect(s.last_error).toContain("no upstream answered: answered with JSON nested deeper than 64 levels");
    expect(await storedTip(d.ctx.db, "deep")).toBeNull();
  });
});

describe("a node echoing its secrets in its errors", () => {
  const KEY = "0123456789abcdef0123456789abcdef";
  const TRON_KEY = "tron-api-key-7c1d2e9f";
  let tronNode: TronNode;
  beforeAll(() => {
    tronNode = startTronNode({ blocks: tronChain("a", 0, 3) });
    tronNode.apiKey = TRON_KEY;
    // The head is asked for with getblock and no id; the chain check (block 0) is answered.
    tronNode.override = (path, body) =>
      path === "/wallet/getblock" && body.id_or_num === undefined
        ? Response.json({ Error: `class java.lang.IllegalAccessException : ApiKey ${TRON_KEY} of tronuser:tron-pass-2 has no quota left` })
        : null;
  });
  afterAll(() => tronNode?.stop());

  test("evm, btc and tron: follow status and every log line show [redacted] instead", async () => {
    const log = capture();
    const port = new URL(node.url).port;
    td = await startTestDaemon({
      log,
      config: {
        networks: {
          evmx: evm([`http://evmuser:evm-pass-1@127.0.0.1:${port}/v3/${KEY}/echo`]),
          btcx: btc([`http://btcuser:btc-pass-1@127.0.0.1:${port}/echo`]),
          // A node naming its chain after the password it was sent: logged, then refused as malformed.
          btcc: btc([`http://btcuser:btc-pass-3@127.0.0.1:${port}/echo-chain`]),
          trx: tron([`http://tronuser:tron-pass-2@${new URL(tronNode.url).host}`], { api_key: TRON_KEY }),
        },
      },
    });
    const d = td;
    const statuses = await Promise.all(["evmx", "btcx", "trx", "btcc"].map((n) => until(() => statusOf(d, n), (x) => x.state === "error" && x.last_error !== null)));
    const errors = statuses.map((s) => s.last_error ?? "");
    // The node's words are there, its secrets are not.
    expect(errors[0]).toStartWith(`eth_blockNumber: refused http://127.0.0.1:${port}/v3/[redacted]/echo: key null, authorization Basic [redacted] ([redacted]:[redacted])`);
    expect(errors[1]).toStartWith(`getblockchaininfo: the node answered error -32000: "refused http://127.0.0.1:${port}/echo: key null, authorization Basic [redacted]`);
    expect(errors[2]).toBe('/wallet/getblock: the node answered an error: "class java.lang.IllegalAccessException : ApiKey [redacted] of [redacted]:[redacted] has no quota left"');
    expect(log.lines.filter((l) => l.msg === "follower poll failed").map((l) => l.fields?.error)).toEqual(expect.arrayContaining(errors));
    expect(log.lines.find((l) => l.msg === "follower chain")?.fields).toMatchObject({ network: "btcc", chain: "[redacted]" });
    expect(errors[3]).toContain("[redacted]");
    const everything = JSON.stringify([statuses, log.lines]);
    for (const secret of [KEY, "evm-pass-1", "btc-pass-1", "tron-pass-2", "btc-pass-3", TRON_KEY, "evmuser", "btcuser", "tronuser", btoa("evmuser:evm-pass-1"), btoa("btcuser:btc-pass-1")]) {
      expect(everything).not.toContain(secret);
    }
  });

  test("btc: the mempool look's log line too", async () => {
    const log = capture();
    const port = new URL(node.url).port;
    td = await startTestDaemon({ config: { networks: { btc: { family: "btc", decimals: 8, rpc_urls: [`http://btcuser:btc-pass-4@127.0.0.1:${port}/echo`] } } } });
    const client = await td.client({ credits: 1_000_000 });
    // A payment order waiting for its first payment, which is what makes the follower look.
    const order = await client.request("POST", "/v1/payments", { order_id: "inv-1", network: "btc", address: "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", amount: "0.001" });
    expect(order.status).toBe(201);
    const pool = td.daemon.deps.upstreams.get("btc");
    if (!pool) throw new Error("no pool");
    const mempool = createMempoolWatch({ network: "btc", client: createBtcClient(pool), limit: btcMoneyLimit("btc", td.ctx.config.networks.btc!), orders: mempoolOrders(td.ctx.db), clock: td.ctx.clock, log, redact: pool.redact });
    await mempool.look();
    const line = log.lines.find((l) => l.msg === "cannot read the mempool");
    expect(line?.fields?.error).toStartWith(`getrawmempool: the node answered error -32000: "refused http://127.0.0.1:${port}/echo: key null, authorization Basic [redacted]`);
    for (const secret of ["btc-pass-4", "btcuser", btoa("btcuser:btc-pass-4")]) expect(JSON.stringify(log.lines)).not.toContain(secret);
  });
});
