import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Address } from "viem";
import { type FollowStatus, followStatus } from "../../src/follow/core/follow-status.ts";
import type { Logger } from "../../src/lib/log.ts";
import { storedHashAt } from "../../src/follow/core/chain-store.ts";
import { pruneBlocks } from "../../src/ingest/retention.ts";
import { MAX_MIN_CONFIRMATIONS } from "../../src/webhooks/filters.ts";
import { upstreamLabel } from "../../src/upstream/pool.ts";
import { type Anvil, startAnvil } from "../support/anvil.ts";
import { openEvents } from "../checkout/support.ts";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { until } from "../support/poll.ts";
import { startUpstreamProxy, type UpstreamProxy } from "../support/upstream-proxy.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";

// Upstream quorum on real anvil nodes (docs/chains.md), quorum = 2. The honest chain is one anvil
// seen through two mirrors; the liar is a second anvil forked from it, whose chain leaves the
// honest one above the fork height and holds a payment the honest chain never had.

type Body = Record<string, any>;
type Line = { level: string; msg: string; fields?: Record<string, unknown> };
const ETH = 1_000_000_000_000_000_000n;
const LIE = "0x00000000000000000000000000000000000011e5" as Address;
const LIE2 = "0x00000000000000000000000000000000000011e6" as Address;
const PAID = "0x000000000000000000000000000000000000da1d" as Address;
const PAID_LATE = "0x000000000000000000000000000000000000da1e" as Address;

let honest: Anvil;
let liar: Anvil;
let mirror1: UpstreamProxy;
let mirror2: UpstreamProxy;
let fork: number;
const daemons: TestDaemon[] = [];
let sink: WebhookSink;

function capture(): Logger & { lines: Line[] } {
  const lines: Line[] = [];
  const at = (level: string) => (msg: string, fields?: Record<string, unknown>) => void lines.push({ level, msg, fields });
  return { lines, debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

beforeAll(async () => {
  honest = await startAnvil();
  await honest.test.mine({ blocks: 2 });
  fork = Number(await honest.public.getBlockNumber());
  liar = await startAnvil(["--fork-url", honest.url]);
  mirror1 = startUpstreamProxy(honest.url);
  mirror2 = startUpstreamProxy(honest.url);
  sink = startWebhookSink();
}, 30_000);

afterAll(async () => {
  for (const d of daemons) await d.stop();
  mirror1?.stop();
  mirror2?.stop();
  await sink?.stop();
  await liar?.stop();
  await honest?.stop();
});

/** A daemon following `anv` from the fork height over `urls`, quorum 2, an order paid to `address`. */
async function follow(urls: string[], address: Address, log?: Logger, confirmations = 1): Promise<{ td: TestDaemon; client: TestClient; paymentId: string }> {
  const td = await startTestDaemon({
    log,
    config: {
      rate_limit: { per_key_rps: 1000 },
      networks: {
        anv: { family: "evm", decimals: 18, confirmations, rpc_urls: urls, follow: true, start_height: fork, poll_interval_ms: 50, max_reorg_depth: 16, quorum: 2, quorum_timeout_seconds: 1 },
      },
    },
  });
  daemons.push(td);
  const client = await td.client({ credits: 10_000_000 });
  const res = await client.request("POST", "/v1/payments", { network: "anv", order_id: `o-${daemons.length}`, amount: "1", address });
  expect(res.status).toBe(201);
  return { td, client, paymentId: ((await res.json()) as Body).payment_id };
}

const status = async (td: TestDaemon): Promise<FollowStatus> => (await followStatus(td.ctx.db, td.config, td.ctx.clock.now())).find((s) => s.network === "anv") as FollowStatus;
const order = async (c: TestClient, id: string): Promise<Body> => (await (await c.request("GET", `/v1/payments/${id}`)).json()) as Body;
const storedTip = async (td: TestDaemon) => (await status(td)).stored_tip ?? -1;

describe("upstream quorum = 2 on anvil", () => {
  test("a payment only the reading upstream shows never confirms: its order stays seen, its held delivery held (and its replay), the payer's page at no confirmation, the wait shown, told once after the timeout", async () => {
    const log = capture();
    // The honest mirror's URL carries credentials: neither the notice nor the log line may show them.
    const withCredentials = mirror1.url.replace("http://", "http://quorum-user:quorum-secret@");
    const { td, client, paymentId } = await follow([liar.url, withCredentials], LIE, log);
    expect((await client.request("POST", "/v1/address-watch/addresses", { network_slug: "anv", address: LIE })).status).toBe(201);
    expect((await client.request("PUT", "/v1/address-watch/webhook", { url: sink.url, enabled: true, events: { min_confirmations: 1 } })).status).toBe(200);
    // The payer's page, live: open before the payment, so its updates are the hub's renderings.
    const checkoutUrl = (await order(client, paymentId)).checkout_url as string;
    const live = await openEvents(`${checkoutUrl}/events`);
    expect(await live.next()).toMatchObject({ status: "waiting" });
    const lie = await liar.mined(await liar.sendEth(liar.accounts[3], LIE, ETH));
    await liar.test.mine({ blocks: 2 });
    await honest.test.mine({ blocks: 3 });
    await until(() => storedTip(td), (tip) => tip >= lie + 2, 15_000);
    const noticed = await until(
      async () => ((await (await client.request("GET", "/v1/account/notices")).json()) as { notices: Body[] }).notices,
      (n) => n.length > 0,
      15_000,
    );
    expect(noticed.map((n) => n.type)).toEqual(["quorum_waiting"]);
    const s = await status(td);
    // Asked where the last held delivery or transfer confirms: agreement there covers the payment's block below it.
    expect(s.quorum?.height).toBeGreaterThanOrEqual(lie);
    expect(noticed[0].message).toContain(`block ${s.quorum?.height}`);
    expect(noticed[0].message).toContain(upstreamLabel(mirror1.url));
    expect(noticed[0].message).not.toContain("quorum-secret");
    expect(Date.parse(s.quorum?.waiting_since as string)).toBeLessThanOrEqual(td.ctx.clock.now() - 1000);
    expect(s.upstream).toBe(upstreamLabel(liar.url));
    expect((await order(client, paymentId)).status).toBe("seen");
    const held = await td.ctx.db.selectFrom("deliveries").select(["event_type", "status"]).where("event_type", "=", "payment").execute();
    expect(held).toEqual([{ event_type: "payment", status: "held" }]);
    // Only the order's own `seen` went out: no payment event of the liar's block.
    expect(sink.received.map((r) => JSON.parse(r.body) as Body).filter((b) => b.type === "payment")).toEqual([]);
    // A replay of that event holds it the same way, though the stored tip gives its block confirmations enough.
    const since = Math.floor(td.ctx.clock.now() / 1000) - 3600;
    const replayed = await client.request("POST", "/v1/address-watch/events/replay", { since, types: ["payment"] });
    expect(replayed.status).toBe(202);
    expect(await replayed.json()).toEqual({ queued: 1, next_after: null });
    const replayedRows = await td.ctx.db.selectFrom("deliveries").select(["event_type", "status", "hold_until_height"]).where("replay", "=", 1).execute();
    expect(replayedRows.map((r) => ({ ...r, hold_until_height: Number(r.hold_until_height) }))).toEqual([{ event_type: "payment", status: "held", hold_until_height: lie }]);
    // The payer's page counts the order's confirmations as the order does: none vouched for.
    const page = await fetch(`${checkoutUrl}.json`);
    expect(page.status).toBe(200);
    expect(((await page.json()) as Body).confirmations).toEqual({ have: 0, need: 1 });
    expect((await live.until((s) => s.status === "seen")).confirmations).toEqual({ have: 0, need: 1 });
    live.close();
    const told = log.lines.filter((l) => l.msg === "upstream quorum not reached");
    expect(told.length).toBe(1);
    expect(told[0].fields).toMatchObject({ network: "anv", height: s.quorum?.height, quorum: 2, disagreeing: [upstreamLabel(mirror1.url)] });
    expect(JSON.stringify(log.lines)).not.toContain("quorum-secret");
    const gauge = await (await fetch(`${td.url}/metrics`)).text();
    expect(gauge).toMatch(/chainwatch_quorum_waiting_seconds\{network="anv"\} [1-9]/);
  }, 30_000);

  test("a liar that is not the reading upstream only costs a look: the order pays once the two honest mirrors agree, and a mirror down only delays it", async () => {
    mirror2.down = true;
    const { td, client, paymentId } = await follow([mirror1.url, liar.url, mirror2.url], PAID);
    const paid = await honest.mined(await honest.sendEth(honest.accounts[4], PAID, ETH));
    await honest.test.mine({ blocks: 1 });
    await until(async () => (await status(td)).quorum?.height ?? -1, (h) => h >= paid, 15_000);
    expect((await order(client, paymentId)).status).toBe("seen");
    mirror2.down = false;
    const done = await until(() => order(client, paymentId), (o) => o.status === "paid", 15_000);
    expect(done).toMatchObject({ status: "paid", amount_received: "1" });
    await until(async () => (await status(td)).quorum, (q) => q === null, 15_000);
  }, 30_000);

  test("when two upstreams outvote the reading one, its block is orphaned (removed: true) and the follower moves to an agreeing upstream", async () => {
    const log = capture();
    // An address of its own: nothing in the liar's earlier blocks waits, so it is asked about this payment's block.
    const { td, client, paymentId } = await follow([liar.url, mirror1.url, mirror2.url], LIE2, log);
    expect((await client.request("POST", "/v1/address-watch/addresses", { network_slug: "anv", address: LIE2 })).status).toBe(201);
    await until(() => storedTip(td), (tip) => tip >= fork + 3, 15_000);
    await liar.mined(await liar.sendEth(liar.accounts[5], LIE2, ETH));
    await until(async () => (await status(td)).upstream, (u) => u === upstreamLabel(mirror1.url), 15_000);
    const events = await until(
      async () => ((await (await client.request("GET", "/v1/address-watch/events?limit=1000")).json()) as { events: Body[] }).events.filter((e) => e.type === "payment"),
      (list) => list.some((e) => e.removed === true),
      15_000,
    );
    expect(events.every((e) => e.removed === true)).toBe(true);
    const head = Number(await honest.public.getBlockNumber());
    await until(() => storedTip(td), (tip) => tip >= head, 15_000);
    expect((await order(client, paymentId)).status).not.toBe("paid");
    expect((await order(client, paymentId)).status).not.toBe("aml_check");
    expect(log.lines.filter((l) => l.msg === "upstream quorum agrees on another block: following one of its upstreams").map((l) => l.fields?.left)).toEqual([upstreamLabel(liar.url)]);
    expect(log.lines.some((l) => l.msg === "reorg")).toBe(true);
  }, 30_000);

  test("a wait that outlives the block it waited at still ends: that block pruned by retention, the upstreams are asked about the lowest one still stored and the order pays", async () => {
    mirror2.down = true;
    // 3 confirmations: the quorum is asked at the block two above the payment's, which no event or order names.
    const { td, client, paymentId } = await follow([mirror1.url, mirror2.url], PAID_LATE, undefined, 3);
    const paid = await honest.mined(await honest.sendEth(honest.accounts[6], PAID_LATE, ETH));
    await honest.test.mine({ blocks: 2 });
    await until(async () => (await status(td)).quorum?.height ?? -1, (h) => h === paid + 2, 15_000);
    await honest.test.mine({ blocks: 3 });
    await until(() => storedTip(td), (tip) => tip >= paid + 5, 15_000);
    // Retention's own prune, keeping one block below the tip instead of max_reorg_depth + 1,000: the
    // same deletion (the block an open order names is kept), without following a thousand blocks.
    expect(await pruneBlocks(td.ctx.db, [{ network: "anv", maxReorgDepth: 1 - MAX_MIN_CONFIRMATIONS, confirmations: 3 }])).toBeGreaterThan(0);
    expect(await Promise.all([paid, paid + 1, paid + 2, paid + 3, paid + 4].map(async (h) => (await storedHashAt(td.ctx.db, "anv", h)) !== null))).toEqual([true, false, false, false, true]);
    expect((await order(client, paymentId)).status).toBe("seen");
    // Asked now about the lowest block still stored above the one it waited at.
    await until(async () => (await status(td)).quorum?.height ?? -1, (h) => h === paid + 4, 15_000);
    mirror2.down = false;
    expect(await until(() => order(client, paymentId), (o) => o.status === "paid", 15_000)).toMatchObject({ status: "paid", amount_received: "1" });
    await until(async () => (await status(td)).quorum, (q) => q === null, 15_000);
  }, 30_000);
});
