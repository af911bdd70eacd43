// The /rpc endpoint's own work without the network: `bun run bench:rpc-core`. In this one process
// each call is a Request object handed straight to a handler, and every upstream POST goes to a
// stub `fetch` that answers a fixed node answer at once, so all that is measured is each
// handler's own work, which `bench:rpc` can only see beside Bun's server, anvil and the load
// generator on the same two cores (most of its figure, and most of its spread between rounds):
//
// - chainwatch: `POST /rpc/{network}/{api_key}` as Bun's server calls it (src/http/native-routes.ts),
//   over a daemon started by startDaemon with the stub as its `fetch`;
// - the contract proxy (support/bare-rpc-proxy.ts): the least the /rpc contract asks of a call;
// - the minimal proxy: the body read and forwarded, the node's bytes answered.
//
// Both calls of bench:rpc (`eth_blockNumber`, and `eth_getBlockByNumber` answered with a block of
// the shape anvil sends), BENCH_CALLS (40,000) calls a round with 16 in flight, BENCH_ROUNDS (5)
// rounds of the three in turn. Prints CPU µs a call of the whole process (every thread), medians
// and spread, and the ratios within each round. Building each Request is in every figure alike.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAccount } from "../src/accounts/accounts.ts";
import { createApiKey } from "../src/accounts/api-keys.ts";
import { setPlan } from "../src/accounts/plans.ts";
import { loadConfig } from "../src/config/load.ts";
import { openContext, startDaemon } from "../src/daemon.ts";
import { nativeRoutes } from "../src/http/native-routes.ts";
import { requestCounter } from "../src/http/request-metrics.ts";
import { createRpcProxy } from "../src/rpc/proxy.ts";
import { contractProxy, minimalProxy } from "./support/bare-rpc-proxy.ts";
import { ownCpuUs } from "./support/cpu.ts";
import { writeDaemonConfig } from "./support/daemons.ts";
import { median, spread } from "./support/rounds.ts";

const CALLS = Number(process.env.BENCH_CALLS ?? 40_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const IN_FLIGHT = 16;
const NODE = "http://127.0.0.1:9/";

/** A block as anvil answers `eth_getBlockByNumber("latest", false)` with one transaction in it. */
const BLOCK = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  result: {
    hash: `0x${"ab".repeat(32)}`,
    parentHash: `0x${"cd".repeat(32)}`,
    sha3Uncles: `0x${"1d".repeat(32)}`,
    miner: `0x${"00".repeat(20)}`,
    stateRoot: `0x${"ef".repeat(32)}`,
    transactionsRoot: `0x${"12".repeat(32)}`,
    receiptsRoot: `0x${"34".repeat(32)}`,
    logsBloom: `0x${"00".repeat(256)}`,
    difficulty: "0x0",
    number: "0x5",
    gasLimit: "0x1c9c380",
    gasUsed: "0x5208",
    timestamp: "0x6765a1b2",
    extraData: "0x",
    mixHash: `0x${"56".repeat(32)}`,
    nonce: "0x0000000000000000",
    baseFeePerGas: "0x3b9aca00",
    size: "0x26a",
    uncles: [],
    transactions: [`0x${"78".repeat(32)}`],
  },
});
const METHODS = [
  { method: "eth_blockNumber", params: [] as unknown[], answer: JSON.stringify({ jsonrpc: "2.0", id: 1, result: "0x5" }) },
  { method: "eth_getBlockByNumber", params: ["latest", false] as unknown[], answer: BLOCK },
];

/** The node, in process: whatever is asked, `answer` at once, with its length (as anvil sends it). */
let answer = METHODS[0].answer;
const node = (async () => new Response(answer, { status: 200, headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(answer)) } })) as unknown as typeof fetch;

type Side = "chainwatch" | "contract proxy" | "minimal proxy";
const SIDES: Side[] = ["chainwatch", "contract proxy", "minimal proxy"];

const dir = mkdtempSync(join(tmpdir(), "chainwatch-bench-rpc-core-"));
try {
  const loaded = loadConfig(
    writeDaemonConfig(dir, `sqlite://${dir}/daemon.db`, ["[networks.eth]", 'family = "evm"', "decimals = 18", "get_block_cost = 20", `rpc_urls = ["${NODE}"]`]),
  );
  if (!loaded.ok) throw new Error(loaded.error);
  const ctx = await openContext(loaded.config, { env: {} });
  const daemon = await startDaemon(ctx, { fetch: node });
  try {
    const plan = await setPlan(ctx.db, ctx.clock, { name: "bench", slots: 1, rpcRps: 1_000_000 });
    if (!plan.ok) throw new Error(plan.error);
    const made = await createAccount(ctx, { name: "bench", plan: "bench", credits: 1_000_000_000_000 });
    if (!made.ok) throw new Error(made.error);
    const created = await createApiKey(ctx, { accountId: made.account.id, allowIps: [] });
    if (!created.ok) throw new Error(created.error);
    const apiKey = created.key.api_key;

    // The daemon's own /rpc route, as its server registers it.
    const deps = daemon.deps;
    const rpc = createRpcProxy({ ...deps, pools: deps.upstreams, meter: deps.rpcMeter });
    const routes = nativeRoutes({ ...deps, rpc, countRequest: requestCounter(deps.metrics), fallback: () => new Response(null, { status: 404 }) });
    const peer = { requestIP: () => ({ address: "127.0.0.1", family: "IPv4", port: 1 }) } as unknown as Parameters<(typeof routes)[string]["POST"]>[1];
    const chainwatch = (request: Request) => routes["/rpc/:network/:api_key"].POST(Object.assign(request, { params: { network: "eth", api_key: apiKey } }), peer);
    const handlers: Record<Side, (request: Request) => Promise<Response>> = {
      chainwatch,
      "contract proxy": contractProxy(NODE, [apiKey], node),
      "minimal proxy": minimalProxy(NODE, node),
    };

    console.log(`calls: ${CALLS} a round, ${ROUNDS} round(s), ${IN_FLIGHT} in flight; each a Request handed to the handler, the node a stub fetch in this process (no sockets)`);
    for (const m of METHODS) {
      answer = m.answer;
      const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: m.method, params: m.params });
      const headers = { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) };
      const url = `http://127.0.0.1/rpc/eth/${apiKey}`;
      const call = async (handle: (request: Request) => Promise<Response>) => {
        const res = await handle(new Request(url, { method: "POST", headers, body }));
        const text = await res.text();
        if (res.status !== 200 || text !== m.answer) throw new Error(`answered ${res.status} ${text.slice(0, 200)}`);
      };
      const us: Record<Side, number[]> = { chainwatch: [], "contract proxy": [], "minimal proxy": [] };
      for (let r = 1; r <= ROUNDS; r++) {
        for (const side of SIDES) {
          const handle = handlers[side];
          const c0 = ownCpuUs();
          for (let done = 0; done < CALLS; done += IN_FLIGHT) await Promise.all(Array.from({ length: IN_FLIGHT }, () => call(handle)));
          us[side].push((ownCpuUs() - c0) / CALLS);
        }
      }
      const ratio = (a: Side, b: Side) => us[a].map((x, i) => x / us[b][i]);
      console.log(`${m.method}: CPU µs per call (median, min–max): ${SIDES.map((s) => `${s} ${spread(us[s], 1)}`).join(", ")}`);
      console.log(
        `  chainwatch / minimal proxy ${spread(ratio("chainwatch", "minimal proxy"), 2)}×, chainwatch / contract proxy ${spread(ratio("chainwatch", "contract proxy"), 2)}×, ` +
          `contract / minimal proxy ${spread(ratio("contract proxy", "minimal proxy"), 2)}× (within each round); chainwatch's own work above the contract: ` +
          `${(median(us.chainwatch) - median(us["contract proxy"])).toFixed(1)} µs a call`,
      );
    }
  } finally {
    await daemon.stop();
    await ctx.db.destroy();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
