import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAccount } from "../../src/accounts/accounts.ts";
import { setPlan } from "../../src/accounts/plans.ts";
import { type Context, openContext } from "../../src/daemon.ts";
import { createIngestPipeline } from "../../src/ingest/pipeline.ts";
import type { IngestService } from "../../src/ingest/ingest-service.ts";
import { manualClock } from "../support/clock.ts";
import { addWatch } from "../../src/watch/watches.ts";
import { countEvents, listEventRows } from "../../src/watch/events.ts";
import { pruneEvents } from "../../src/watch/retention.ts";
import { startTestDaemon, testConfig, type TestClient, type TestDaemon } from "../support/harness.ts";
import { blocksOfFeed } from "../support/feed-block.ts";
import { setDefaultEndpoint } from "../support/endpoints.ts";

const W = "0x1111111111111111111111111111111111111111";
const V = "0x5555555555555555555555555555555555555555";
const X = "0x2222222222222222222222222222222222222222";

type Json = Record<string, any>;

async function page(client: TestClient, query: string): Promise<{ status: number; body: Json }> {
  const res = await client.request("GET", `/v1/address-watch/events${query}`);
  return { status: res.status, body: (await res.json()) as Json };
}

describe("GET /v1/address-watch/events", () => {
  let d: TestDaemon;
  let a: TestClient;
  let b: TestClient;
  let watchW: string;
  let watchV: string;

  beforeAll(async () => {
    // Paging takes dozens of requests a second; the rate limit has its own tests.
    d = await startTestDaemon({ config: { rate_limit: { per_key_rps: 100_000 } } });
    a = await d.client();
    b = await d.client();
    const add = async (c: TestClient, address: string) =>
      ((await (await c.request("POST", "/v1/address-watch/addresses", { network_slug: "eth", address })).json()) as Json).watch_id as string;
    watchW = await add(a, W);
    watchV = await add(a, V);
    await add(b, "0x6666666666666666666666666666666666666666");
    // 1 block event + 200 payments to W + 49 payouts from V = 250 events for A.
    const transactions = [
      ...Array.from({ length: 200 }, (_, i) => ({ hash: `0xp${i}`, from: X, to: W, value: String(i + 1) })),
      ...Array.from({ length: 49 }, (_, i) => ({ hash: `0xq${i}`, from: V, to: "0x9999999999999999999999999999999999999999", value: "1" })),
    ];
    const res = await d.ingest({ network: "eth", height: 100, hash: "0xblock", transactions });
    expect(await res.json()).toEqual({ blocks: 1, events: 250 + 1 });
  });
  afterAll(() => d.stop());

  it("pages through 250 events with limit 7, each exactly once and in insertion order", async () => {
    const seen: string[] = [];
    let after: string | null = null;
    let pages = 0;
    do {
      const { status, body } = await page(a, `?limit=7${after ? `&after=${after}` : ""}`);
      expect(status).toBe(200);
      expect(body.events.length).toBe(pages < 35 ? 7 : 250 - 35 * 7);
      seen.push(...body.events.map((e: Json) => e.id));
      after = body.next_after;
      if (after !== null) expect(after).toBe(body.events[body.events.length - 1].id);
      pages++;
    } while (after !== null);
    expect(pages).toBe(36);
    // Its own wallet events and the one shared block event, in insertion order.
    const stored = await d.ctx.db.selectFrom("events").select("id").where("account_id", "in", [a.accountId, "*"]).orderBy("seq").execute();
    expect(seen).toEqual(stored.map((r) => r.id));
  });

  it("returns 100 events by default and null next_after when nothing follows", async () => {
    const first = await page(a, "");
    expect(first.body.events.length).toBe(100);
    expect(first.body.next_after).toBe(first.body.events[99].id);
    const last = await page(a, "?limit=1000");
    expect(last.body.events.length).toBe(250);
    expect(last.body.next_after).toBeNull();
  });

  it.each([
    ["type=payment", 200],
    ["type=payout", 49],
    ["type=block", 1],
    ["type=other", 0],
    ["network=eth", 250],
    ["network=btc", 0],
  ])("filters by %s", async (query, n) => {
    const { body } = await page(a, `?limit=1000&${query}`);
    expect(body.events.length).toBe(n);
  });

  it("filters by watch_id", async () => {
    const { body } = await page(a, `?limit=1000&watch_id=${watchV}`);
    expect(body.events.length).toBe(49);
    expect(body.events.every((e: Json) => e.watch_id === watchV && e.address === V)).toBe(true);
    expect((await page(a, `?limit=1000&watch_id=${watchW}`)).body.events.length).toBe(200);
  });

  it("pages within a filter using the cursor", async () => {
    const first = await page(a, "?type=payout&limit=40");
    const rest = await page(a, `?type=payout&limit=40&after=${first.body.next_after}`);
    expect(rest.body.events.length).toBe(9);
    expect(rest.body.next_after).toBeNull();
  });

  it("shows an account none of another's events", async () => {
    const { body } = await page(b, "?limit=1000");
    expect(body.events.map((e: Json) => e.type)).toEqual(["block"]);
  });

  it.each([
    ["?limit=0", "limit must be an integer from 1 to 1000"],
    ["?limit=1001", "limit must be an integer from 1 to 1000"],
    ["?limit=ten", "limit must be an integer from 1 to 1000"],
    ["?limit=-1", "limit must be an integer from 1 to 1000"],
    ["?type=tx", "type must be one of payment, payout, other, block"],
    ["?network=dogecoin", "Unknown network: dogecoin"],
    ["?after=evt_000000000000000000000000", "Unknown cursor: evt_000000000000000000000000"],
    ["?after=", "after must not be empty"],
  ])("answers 400 for %s", async (query, error) => {
    const res = await page(a, query);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error });
  });
});

describe("block events follow who watches the network", () => {
  let d: TestDaemon;
  let early: TestClient;
  let late: TestClient;
  let earlyWatch: string;
  const blockAt = (height: number) => ({ network: "eth", height, hash: `0xh${height}`, transactions: [] });
  const blockHashes = async (c: TestClient) => ((await page(c, "?type=block")).body.events as Json[]).map((e) => e.block_hash);

  beforeAll(async () => {
    d = await startTestDaemon();
    early = await d.client();
    late = await d.client();
    const res = await early.request("POST", "/v1/address-watch/addresses", { network_slug: "eth", address: W });
    earlyWatch = ((await res.json()) as Json).watch_id;
    await d.ingest(blockAt(1));
    await late.request("POST", "/v1/address-watch/addresses", { network_slug: "eth", address: V });
    expect(await (await d.ingest(blockAt(2))).json()).toEqual({ blocks: 1, events: 2 });
    await early.request("DELETE", "/v1/address-watch/addresses", { watch_id: earlyWatch });
    expect(await (await d.ingest(blockAt(3))).json()).toEqual({ blocks: 1, events: 1 });
  });
  afterAll(() => d.stop());

  it("gives an account the block events of blocks ingested while it watched, and only those", async () => {
    expect(await blockHashes(early)).toEqual(["0xh1", "0xh2"]);
    expect(await blockHashes(late)).toEqual(["0xh2", "0xh3"]);
  });

  it("refuses as a cursor a block event the account did not receive", async () => {
    const first = ((await page(early, "")).body.events as Json[])[0];
    const res = await page(late, `?after=${first.id}`);
    expect(res).toEqual({ status: 400, body: { error: `Unknown cursor: ${first.id}` } });
  });

  it("counts what each account received", async () => {
    expect(await countEvents(d.ctx.db, early.accountId)).toBe(2);
    expect(await countEvents(d.ctx.db, late.accountId)).toBe(2);
  });

  it("a plain poll (hand-written statements) reads what the built listing reads, from every cursor and at every page size", async () => {
    const maxSeq = Number((await d.ctx.db.selectFrom("events").select((eb) => eb.fn.max("seq").as("m")).executeTakeFirstOrThrow()).m);
    for (const c of [early, late]) {
      for (let afterSeq = 0; afterSeq <= maxSeq; afterSeq++) {
        for (const limit of [1, 2, 100]) {
          const plain = await listEventRows(d.ctx.db, { accountId: c.accountId, afterSeq, limit });
          // A filter that keeps every event takes the built path.
          const built = await listEventRows(d.ctx.db, { accountId: c.accountId, afterSeq, limit, createdFrom: 0 });
          expect({ afterSeq, limit, plain }).toEqual({ afterSeq, limit, plain: built });
        }
      }
    }
  });
});

describe("pruneEvents", () => {
  const DAY = 86_400_000;
  const clock = manualClock();
  let dir: string;
  let ctx: Context;
  let ingest: IngestService;
  let accountId: string;

  const block = (n: number, hash: string) => ({
    network: "eth",
    height: n,
    hash,
    transactions: [{ hash: `0xtx-${hash}`, from: X, to: W, value: "1" }],
  });
  const eventsOf = (hash: string) =>
    ctx.db
      .selectFrom("events")
      .select(["id", "type"])
      .where("body", "like", `%"block_hash":"${hash}"%`)
      .orderBy("seq")
      .execute();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "chainwatch-retention-"));
    ctx = await openContext(testConfig(dir), { clock, env: {} });
    await setPlan(ctx.db, clock, { name: "p", slots: 5 });
    const created = await createAccount(ctx, { name: "keeper", plan: "p" });
    if (!created.ok) throw new Error(created.error);
    accountId = created.account.id;
    await addWatch(ctx.db, { accountId, network: "eth", address: W, now: clock.now() });
    await setDefaultEndpoint(ctx.db, accountId, { url: "http://127.0.0.1:9/hook", enabled: true });
    ingest = createIngestPipeline(ctx);
  });
  afterAll(async () => {
    await ctx.db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it("deletes events older than the retention, keeps those still owed a delivery, and never touches deliveries", async () => {
    // Four old blocks (block + payment event each), then one recent block.
    for (const [i, hash] of ["0xdone", "0xpending", "0xpaused", "0xfailed"].entries()) expect(await ingest.ingestBlocks(blocksOfFeed(block(i + 1, hash), ctx.config.networks))).toMatchObject({ ok: true, events: 2 });
    clock.advance(31 * DAY);
    expect(await ingest.ingestBlocks(blocksOfFeed(block(10, "0xrecent"), ctx.config.networks))).toMatchObject({ ok: true, events: 2 });

    const setStatus = async (hash: string, status: string) => {
      const ids = (await eventsOf(hash)).map((e) => e.id);
      await ctx.db.updateTable("deliveries").set({ status }).where("event_id", "in", ids).execute();
    };
    await setStatus("0xdone", "succeeded");
    await setStatus("0xpaused", "paused");
    await setStatus("0xfailed", "failed");
    await setStatus("0xrecent", "succeeded");
    const deliveriesBefore = await ctx.db.selectFrom("deliveries").selectAll().orderBy("id").execute();

    expect(await pruneEvents(ctx.db, clock.now(), 30)).toEqual({ events: 4, subscriptions: 0 });

    expect((await eventsOf("0xdone")).length).toBe(0);
    expect((await eventsOf("0xfailed")).length).toBe(0);
    expect((await eventsOf("0xpending")).map((e) => e.type)).toEqual(["block", "payment"]);
    expect((await eventsOf("0xpaused")).map((e) => e.type)).toEqual(["block", "payment"]);
    expect((await eventsOf("0xrecent")).length).toBe(2);
    expect(await ctx.db.selectFrom("deliveries").selectAll().orderBy("id").execute()).toEqual(deliveriesBefore);
  });

  it("deletes the kept events once their deliveries are done", async () => {
    await ctx.db.updateTable("deliveries").set({ status: "succeeded" }).execute();
    expect(await pruneEvents(ctx.db, clock.now(), 30)).toEqual({ events: 4, subscriptions: 0 });
    expect(await pruneEvents(ctx.db, clock.now(), 30)).toEqual({ events: 0, subscriptions: 0 });
    const left = await ctx.db.selectFrom("events").select("type").execute();
    expect(left.length).toBe(2);
  });

  it("keeps everything younger than the retention", async () => {
    clock.advance(29 * DAY);
    expect(await pruneEvents(ctx.db, clock.now(), 30)).toEqual({ events: 0, subscriptions: 0 });
    clock.advance(2 * DAY);
    expect(await pruneEvents(ctx.db, clock.now(), 30)).toEqual({ events: 2, subscriptions: 0 });
  });

  it("drops a closed block subscription once no block event it covered is left", async () => {
    // The account stops watching: the next block closes its subscription and reaches nobody.
    await ctx.db.deleteFrom("watches").execute();
    expect(await ingest.ingestBlocks(blocksOfFeed(block(20, "0xafter"), ctx.config.networks))).toMatchObject({ ok: true, blocks: 1, events: 0 });
    const subscriptions = () => ctx.db.selectFrom("block_subscriptions").select(["from_seq", "until_seq"]).execute();
    expect((await subscriptions()).map((s) => s.until_seq === null)).toEqual([false]);
    // Its block events are all pruned already (the store is empty), so the interval goes too.
    expect(await pruneEvents(ctx.db, clock.now(), 30)).toEqual({ events: 0, subscriptions: 1 });
    expect(await subscriptions()).toEqual([]);
  });
});
