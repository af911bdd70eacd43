import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createApiKey } from "../../src/accounts/api-keys.ts";
import { openContext } from "../../src/daemon.ts";
import { type Anvil, startAnvil } from "../support/anvil.ts";
import { startTestDaemon, type TestClient, type TestDaemon, testDatabaseUrl } from "../support/harness.ts";
import { call, eventually, postRpc, rpcError } from "./support.ts";
import { CLI } from "../support/cli.ts";
import { manualClock } from "../support/clock.ts";
import { until } from "../support/poll.ts";

// The plan's calls-per-second window, credits from the account's pool and the usage series, with
// a real anvil node behind chainwatch.
let anvil: Anvil;
let td: TestDaemon;

const ETH = { family: "evm", decimals: 18, get_block_cost: 20 };

beforeAll(async () => {
  anvil = await startAnvil();
  td = await startTestDaemon({ config: { networks: { eth: { ...ETH, rpc_urls: [anvil.url] } } } });
});

afterAll(async () => {
  await td?.stop();
  await anvil?.stop();
});

const rpcAs = (c: TestClient, body: unknown) => postRpc(`${td.url}/rpc/eth/${c.apiKey}`, body);
const blockNumber = (id: number) => call(id, "eth_blockNumber");

async function usageToday(c: TestClient) {
  const res = await c.request("GET", "/v1/account/usage?days=1");
  return ((await res.json()) as { series: { credits: number; deliveries: number; events: number; rpc_calls: number }[] }).series[0];
}

async function balance(c: TestClient): Promise<number> {
  const row = await td.ctx.db.selectFrom("accounts").select("credits").where("id", "=", c.accountId).executeTakeFirstOrThrow();
  return Number(row.credits);
}

describe("rpc_rps: a sliding one-second window per account", () => {
  // A daemon of their own on a clock held still: every call of a test falls in the same one-second
  // window however long a loaded machine (or the node) takes over each, and the window slides only
  // when a test moves the clock. On the real clock, a call made more than a second after the
  // test's first one would find the window moved on and pass.
  const clock = manualClock();
  let held: TestDaemon;
  beforeAll(async () => {
    held = await startTestDaemon({ clock, config: { networks: { eth: { ...ETH, rpc_urls: [anvil.url] } } } });
  });
  afterAll(async () => {
    await held?.stop();
  });
  const rpcAs = (c: TestClient, body: unknown) => postRpc(`${held.url}/rpc/eth/${c.apiKey}`, body);

  test("of a burst of 2 × rpc_rps single calls exactly rpc_rps pass; the rest answer 429 -32005 with Retry-After: 1", async () => {
    const c = await held.client({ credits: 1000, rpcRps: 5 });
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => rpcAs(c, blockNumber(i))));
    const passed = answers.filter((a) => a.status === 200);
    const limited = answers.filter((a) => a.status === 429);
    expect(passed).toHaveLength(5);
    expect(limited).toHaveLength(5);
    for (const a of passed) expect(a.body.result).toMatch(/^0x/);
    for (const a of limited) {
      expect(a.retryAfter).toBe("1");
      expect(a.body).toEqual(rpcError(a.body.id, -32005, "Rate limit exceeded."));
    }
    // Every call got its own id back.
    expect(answers.map((a) => a.body.id)).toEqual(Array.from({ length: 10 }, (_, i) => i));
    // The window slides: once the burst is a second old, calls pass again.
    clock.advance(1000);
    const recovered = await rpcAs(c, blockNumber(99));
    expect(recovered.status).toBe(200);
    expect(recovered.body.id).toBe(99);
  });

  test("the window is the account's, shared by all its keys", async () => {
    const c = await held.client({ credits: 1000, rpcRps: 2 });
    const second = await createApiKey(held.ctx, { accountId: c.accountId, allowIps: [] });
    if (!second.ok) throw new Error(second.error);
    const viaFirst = await Promise.all([rpcAs(c, blockNumber(1)), rpcAs(c, blockNumber(2))]);
    expect(viaFirst.map((a) => a.status)).toEqual([200, 200]);
    expect((await postRpc(`${held.url}/rpc/eth/${second.key.api_key}`, blockNumber(3))).status).toBe(429);
  });

  test("a batch counts each call: the calls past the limit are answered -32005 and the next batch is refused whole", async () => {
    const c = await held.client({ credits: 1000, rpcRps: 5 });
    const first = await rpcAs(c, Array.from({ length: 10 }, (_, i) => blockNumber(i)));
    expect(first.status).toBe(200);
    expect(first.retryAfter).toBe("1");
    expect(first.body.slice(0, 5).every((a: { result?: string }) => typeof a.result === "string")).toBe(true);
    expect(first.body.slice(5)).toEqual([5, 6, 7, 8, 9].map((id) => rpcError(id, -32005, "Rate limit exceeded.")));
    const second = await rpcAs(c, [blockNumber(20), blockNumber(21)]);
    expect(second).toMatchObject({ status: 429, retryAfter: "1", body: [rpcError(20, -32005, "Rate limit exceeded."), rpcError(21, -32005, "Rate limit exceeded.")] });
  });
});

describe("credits", () => {
  test("an account with no credits gets 402 -32013, and is served again after `accounts credit` from the CLI", async () => {
    const c = await td.client({ credits: 0, rpcRps: 100 });
    expect(await rpcAs(c, blockNumber(1))).toMatchObject({ status: 402, body: rpcError(1, -32013, "Insufficient credits.") });
    const config = join(td.dir, "cli.toml");
    writeFileSync(config, `[database]\nurl = "${testDatabaseUrl(td.dir)}"\n[secrets]\nmaster_key_file = "${td.dir}/master.key"\n`);
    const cli = Bun.spawn([process.execPath, CLI, "accounts", "credit", c.accountId, "--add", "3", "--json", "--config", config], {
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(await cli.exited).toBe(0);
    const served = await eventually(async () => {
      const a = await rpcAs(c, blockNumber(2));
      return a.status === 200 ? a : undefined;
    });
    expect(served.body.id).toBe(2);
    // Three credits: this call and two more, then the in-memory view refuses without a database round trip.
    const next = [];
    for (let i = 3; i <= 5; i++) next.push(await rpcAs(c, blockNumber(i)));
    expect(next.map((a) => a.status)).toEqual([200, 200, 402]);
    await td.daemon.deps.rpcMeter.flush();
    expect(await balance(c)).toBe(0);
  });

  test("usage counts calls answered and the credits each method costs; refused calls and node errors are free", async () => {
    const c = await td.client({ credits: 1000, rpcRps: 100 });
    await rpcAs(c, [blockNumber(1), blockNumber(2), blockNumber(3)]); // 3 × 1
    await rpcAs(c, call(4, "eth_getBlockByNumber", ["latest", false])); // get_block_cost 20
    await rpcAs(c, call(5, "eth_getLogs", [{ fromBlock: "0x0", toBlock: "latest" }])); // 10
    expect((await rpcAs(c, call(6, "eth_getTransactionReceipt", ["0x12"]))).body.error.code).toBe(-32602); // the node's error: counted, free
    expect((await rpcAs(c, call(7, "debug_traceBlock"))).body.error.message).toBe("Method not allowed: debug_traceBlock"); // not counted
    await rpcAs(c, call(8, "eth_chainId"));
    await rpcAs(c, call(9, "net_version")); // 2 × 1
    // Charges reach the database within the flush interval, without anyone asking for a flush.
    const usage = await eventually(async () => {
      const u = await usageToday(c);
      return u.rpc_calls === 8 ? u : undefined;
      // Polled below the signed API's per-key limit.
    }, { timeoutMs: 10_000, everyMs: 150 });
    expect(usage).toMatchObject({ credits: 35, deliveries: 0, events: 0, rpc_calls: 8 });
    expect(await balance(c)).toBe(965);
    // GET /v1/account shows the same pool (its snapshot is at most a second old).
    const account = await eventually(async () => {
      const a = (await (await c.request("GET", "/v1/account")).json()) as { credits: { spent_today: number } };
      return a.credits.spent_today === 35 ? a : undefined;
    }, { timeoutMs: 10_000, everyMs: 150 });
    expect(account).toMatchObject({ plan: { rpc_rps: 100 }, credits: { balance: 965, spent_today: 35 } });
    // A later flush charges nothing twice.
    await td.daemon.deps.rpcMeter.flush();
    await td.daemon.deps.rpcMeter.flush();
    expect(await usageToday(c)).toMatchObject({ credits: 35, rpc_calls: 8 });
    expect(await balance(c)).toBe(965);
  });

  test("callers at once on one daemon are served exactly the balance, slice after slice, never a call more", async () => {
    const sliced = await startTestDaemon({ config: { rpc: { credit_slice: 7 }, networks: { eth: { ...ETH, rpc_urls: [anvil.url] } } } });
    try {
      const c = await sliced.client({ credits: 57, rpcRps: 100_000 });
      let served = 0;
      let refused = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          for (let i = 0; i < 15; i++) {
            const a = await postRpc(`${sliced.url}/rpc/eth/${c.apiKey}`, blockNumber(i));
            if (a.status === 200) served++;
            else if (a.status === 402) refused++;
            else throw new Error(`unexpected ${a.status} ${JSON.stringify(a.body)}`);
          }
        }),
      );
      expect({ served, refused }).toEqual({ served: 57, refused: 120 - 57 });
      await sliced.daemon.deps.rpcMeter.flush();
      const row = await sliced.ctx.db.selectFrom("accounts").select("credits").where("id", "=", c.accountId).executeTakeFirstOrThrow();
      expect(Number(row.credits)).toBe(0);
      expect(await sliced.ctx.db.selectFrom("credit_leases").selectAll().execute()).toEqual([]);
    } finally {
      await sliced.stop();
    }
  });

  test("eth_chainId and net_version are answered from the cache after the node's first answer", async () => {
    const c = await td.client({ credits: 100, rpcRps: 100 });
    const before = await (await fetch(`${td.url}/metrics`)).text();
    const count = (text: string) => Number(/chainwatch_rpc_upstream_seconds_count\{[^}]*\} (\d+)/.exec(text)?.[1] ?? 0);
    const answers = [await rpcAs(c, call(1, "eth_chainId")), await rpcAs(c, call("x", "net_version"))];
    expect(answers.map((a) => a.body)).toEqual([
      { jsonrpc: "2.0", id: 1, result: "0x7a69" },
      { jsonrpc: "2.0", id: "x", result: "31337" },
    ]);
    expect(count(await (await fetch(`${td.url}/metrics`)).text())).toBe(count(before));
  });
});

describe("batched charges", () => {
  test("calls add no database write until the flush; shutting down flushes what is pending", async () => {
    // The file's node: this daemon only reads block numbers from it.
    const slow = await startTestDaemon({ config: { rpc: { flush_interval_seconds: 60 }, networks: { eth: { ...ETH, rpc_urls: [anvil.url] } } } });
    try {
      const c = await slow.client({ credits: 100, rpcRps: 100 });
      const rows = () => slow.ctx.db.selectFrom("usage_daily").selectAll().where("account_id", "=", c.accountId).execute();
      const credits = async () => Number((await slow.ctx.db.selectFrom("accounts").select("credits").where("id", "=", c.accountId).executeTakeFirstOrThrow()).credits);
      // The flush schedule's first tick comes at the first whole second after the daemon starts
      // (the interval counts from there): calls around it would be written by it. So one call first,
      // then past that tick: either the call is written by it, or the tick came before the call;
      // either way the next flush is a minute away.
      expect((await postRpc(`${slow.url}/rpc/eth/${c.apiKey}`, blockNumber(0))).status).toBe(200);
      await until(rows, (r) => r.length > 0, 5_000).catch(() => undefined);
      const before = { rows: await rows(), credits: await credits() };
      for (let i = 1; i <= 4; i++) expect((await postRpc(`${slow.url}/rpc/eth/${c.apiKey}`, blockNumber(i))).status).toBe(200);
      expect({ rows: await rows(), credits: await credits() }).toEqual(before);
      // stop() destroys the database handle: read the file again through a fresh context.
      await slow.daemon.stop();
      const again = await openContext(slow.config, { env: {} });
      const row = await again.db.selectFrom("usage_daily").select(["credits", "rpc_calls"]).where("account_id", "=", c.accountId).executeTakeFirstOrThrow();
      expect(row).toEqual({ credits: 5, rpc_calls: 5 });
      await again.db.destroy();
    } finally {
      await slow.stop();
    }
  });

  test("with billing off calls are free but still counted", async () => {
    const free = await startTestDaemon({ config: { billing: { enabled: false }, networks: { eth: { ...ETH, rpc_urls: [anvil.url] } } } });
    try {
      const c = await free.client({ credits: 0, rpcRps: 100 });
      expect((await postRpc(`${free.url}/rpc/eth/${c.apiKey}`, call(1, "eth_getLogs", [{}]))).status).toBe(200);
      await free.daemon.deps.rpcMeter.flush();
      const row = await free.ctx.db.selectFrom("usage_daily").select(["credits", "rpc_calls"]).where("account_id", "=", c.accountId).executeTakeFirstOrThrow();
      expect(row).toEqual({ credits: 0, rpc_calls: 1 });
    } finally {
      await free.stop();
    }
  });
});
