import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { storedTip } from "../../src/follow/core/chain-store.ts";
import { type FollowStatus, followStatus } from "../../src/follow/core/follow-status.ts";
import { until } from "../delivery/fixtures.ts";
import { startTestDaemon, type TestDaemon } from "../support/harness.ts";
import { MAINNET_CHAIN_ID, startTronNode, type TronNode, tronAddress, tronChain, txIdOf } from "../support/tron-node.ts";

// A real daemon following a java-tron node that misbehaves: an error page, a servlet's `{"Error"}`,
// a block with a malformed address, a node without transaction history, another chain, a wrong
// API key. Whatever the node does, nothing of it is stored, `follow status` says what is wrong,
// and the follower goes on by itself once the node answers well.

const W = tronAddress(0xa11ce);
const SENDER = tronAddress(0xb0b);
const NILE_CHAIN_ID = 0xcd8690dc;

let td: TestDaemon | null = null;
const nodes: TronNode[] = [];
afterEach(async () => {
  await td?.stop();
  td = null;
  for (const n of nodes.splice(0)) n.stop();
});

function node(opts: Parameters<typeof tronChain>[3] = {}, to = 3): TronNode {
  const n = startTronNode({ blocks: tronChain("a", 0, to, opts) });
  nodes.push(n);
  return n;
}

/** A daemon following `trx` (family tron) from height 0 on `urls`, polling every 20 ms. */
async function follow(urls: string[], network: Record<string, unknown> = {}): Promise<TestDaemon> {
  td = await startTestDaemon({
    config: { networks: { trx: { family: "tron", decimals: 6, confirmations: 1, rpc_urls: urls, follow: true, start_height: 0, poll_interval_ms: 20, ...network } } },
  });
  return td;
}

const status = async (d: TestDaemon): Promise<FollowStatus> => (await followStatus(d.ctx.db, d.config, d.ctx.clock.now())).find((s) => s.network === "trx") as FollowStatus;
const tip = async (d: TestDaemon) => (await storedTip(d.ctx.db, "trx"))?.height ?? null;
const events = async (d: TestDaemon) => (await d.ctx.db.selectFrom("events").select(["type", "body"]).where("network", "=", "trx").where("type", "!=", "block").execute()).map((e) => JSON.parse(e.body));

/** A daemon at the node's tip 3, watching W; then block 4 (paying W) appears. */
async function followingThenBlock4(n: TronNode, network: Record<string, unknown> = {}): Promise<TestDaemon> {
  const d = await follow([n.url], network);
  const client = await d.client({ credits: 1_000_000 });
  expect((await client.request("POST", "/v1/address-watch/addresses", { network_slug: "trx", address: W })).status).toBe(201);
  await until(() => tip(d), (h) => h === 3);
  const [b4] = tronChain("a", 4, 4, { txs: { 4: [{ kind: "trx", id: txIdOf("pay-w"), from: SENDER, to: W, amount: 2_000_000 }] } });
  n.blocks.set(4, b4);
  return d;
}

describe("a node that answers something else than its API", () => {
  test.each([
    ["an HTML error page with status 200", () => new Response("<html><body>Bad gateway</body></html>", { headers: { "Content-Type": "text/html" } }), "no upstream answered: answered with a body that is not JSON"],
    ["a proxy's 502 page", () => new Response("<html>502</html>", { status: 502 }), "no upstream answered: HTTP 502"],
    [
      "a servlet error (the rate limiter's, as recorded)",
      () => new Response(readFileSync(join(import.meta.dir, "../fixtures/tron/error-rate-limit.json")), { headers: { "Content-Type": "application/json" } }),
      '/wallet/getblockbynum: the node answered an error: "class java.lang.IllegalAccessException : lack of computing resources"',
    ],
  ])("%s is an upstream error in follow status; nothing is stored until the node answers well", async (_name, page, message) => {
    const n = node();
    const d = await followingThenBlock4(n);
    n.override = (path) => (path === "/wallet/getblockbynum" ? page() : null);
    const s = await until(() => status(d), (x) => x.state === "error");
    expect(s).toMatchObject({ last_error: message, stored_tip: 3, node_height: 4 });
    expect(await events(d)).toEqual([]);

    n.override = null;
    await until(() => status(d), (x) => x.state === "following" && x.stored_tip === 4);
    expect((await events(d)).map((e) => [e.type, e.address, e.amount])).toEqual([["payment", W, "2"]]);
  });
});

describe("malformed blocks", () => {
  test("a block whose recipient is no tron address is refused: nothing of it is stored or delivered, the field is named", async () => {
    const n = node();
    const d = await followingThenBlock4(n);
    n.rewriteBlock = (b) => {
      if (b.transactions) b.transactions[0].raw_data.contract[0].parameter.value.to_address = "<b>pwned</b>";
      return b;
    };
    const s = await until(() => status(d), (x) => x.state === "error");
    expect(s.last_error).toBe(
      'the node sent a malformed block 4: transactions[0].raw_data.contract[0].parameter.value.to_address is not a tron address (base58check T…, or 41 + 40 hex digits) ("<b>pwned</b>")',
    );
    expect(await tip(d)).toBe(3);
    expect(await events(d)).toEqual([]);
    n.rewriteBlock = null;
    await until(() => status(d), (x) => x.state === "following" && x.stored_tip === 4);
    expect((await events(d)).map((e) => e.address)).toEqual([W]);
  });

  test("a node without transaction history (no infos for a block's transactions) is an error, not a block without transfers", async () => {
    const n = node();
    const d = await followingThenBlock4(n);
    n.override = (path) => (path === "/wallet/gettransactioninfobyblocknum" ? Response.json([]) : null);
    const s = await until(() => status(d), (x) => x.state === "error");
    expect(s.last_error).toBe(
      `the node has no execution result (transaction info) for 1 of the 1 transactions of block 4, e.g. ${txIdOf("pay-w")} (a java-tron node keeps them with storage.transHistory.switch = "on")`,
    );
    expect(await tip(d)).toBe(3);
    n.override = null;
    await until(() => status(d), (x) => x.state === "following" && x.stored_tip === 4);
  });

  // JSON.stringify cannot print a bigint: the int64 past its end is spliced in as digits.
  const rawJson = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON;
  test.each([
    ["a JSON string of digits (java-tron prints int64 as a number)", "2000000", '"2000000"'],
    ["a number past int64", rawJson("9223372036854775808"), "9223372036854775808"],
  ])("a TRX amount sent as %s is refused: nothing stored, the field named", async (_name, amount, shown) => {
    const n = node();
    const d = await followingThenBlock4(n);
    n.rewriteBlock = (b) => {
      if (b.transactions) b.transactions[0].raw_data.contract[0].parameter.value.amount = amount;
      return b;
    };
    const s = await until(() => status(d), (x) => x.state === "error");
    expect(s.last_error).toBe(
      `the node sent a malformed block 4: transactions[0].raw_data.contract[0].parameter.value.amount is not a JSON number of sun from 0 to 2^63 - 1 (${shown})`,
    );
    expect(await tip(d)).toBe(3);
    expect(await events(d)).toEqual([]);
    n.rewriteBlock = null;
    await until(() => status(d), (x) => x.state === "following" && x.stored_tip === 4);
    expect((await events(d)).map((e) => [e.address, e.amount_raw])).toEqual([[W, "2000000"]]);
  });

  test("a TRX amount beyond 2^53 sun is read exactly, not rounded by JSON.parse", async () => {
    const n = node();
    const d = await follow([n.url]);
    const client = await d.client({ credits: 1_000_000 });
    expect((await client.request("POST", "/v1/address-watch/addresses", { network_slug: "trx", address: W })).status).toBe(201);
    await until(() => tip(d), (h) => h === 3);
    n.blocks.set(4, tronChain("a", 4, 4, { txs: { 4: [{ kind: "trx", from: SENDER, to: W, amount: 90_071_992_547_409_931n }] } })[0]);
    const [payment] = await until(() => events(d), (e) => e.length === 1);
    expect(payment).toMatchObject({ type: "payment", amount_raw: "90071992547409931", amount: "90071992547.409931" });
  });
});

describe("chain and credentials", () => {
  test("a node on another chain than chain_id stores nothing, naming both ids; the right node is followed", async () => {
    const nile = node({ chainId: NILE_CHAIN_ID });
    const d = await follow([nile.url], { chain_id: MAINNET_CHAIN_ID });
    const s = await until(() => status(d), (x) => x.state === "error");
    expect(s.last_error).toBe(`upstream ${nile.url} is on chain id ${NILE_CHAIN_ID}, not ${MAINNET_CHAIN_ID} ([networks.trx] chain_id); nothing it sends is stored`);
    expect(await tip(d)).toBeNull();
    // The same URL now serves mainnet blocks.
    nile.blocks = new Map(tronChain("a", 0, 3).map((b) => [b.height, b]));
    await until(() => status(d), (x) => x.state === "following" && x.stored_tip === 3);
  });

  test("a failover to a node of another chain is refused while the first is down", async () => {
    const main = node();
    const other = node({ chainId: NILE_CHAIN_ID }, 9);
    const d = await follow([main.url, other.url]);
    await until(() => tip(d), (h) => h === 3);
    main.down = true;
    const s = await until(() => status(d), (x) => x.state === "error" && x.upstream === other.url);
    expect(s.last_error).toBe(`upstream ${other.url} is on chain id ${NILE_CHAIN_ID}, not ${MAINNET_CHAIN_ID} (the chain id the follower started on); nothing it sends is stored`);
    expect(await tip(d)).toBe(3);
  });

  test("a wrong API key shows as the node's refusal; the key itself appears nowhere", async () => {
    const n = node();
    n.apiKey = "the-right-key";
    const d = await follow([n.url], { api_key: "a-wrong-key" });
    const s = await until(() => status(d), (x) => x.state === "error");
    expect(s.last_error).toBe("no upstream answered: HTTP 401");
    expect(n.requests.every((r) => r.key === "a-wrong-key")).toBe(true);
    expect(JSON.stringify(s)).not.toContain("a-wrong-key");
  });
});
