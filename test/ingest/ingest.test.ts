import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { networkTips } from "../../src/ingest/blocks.ts";
import { INGEST_TOKEN, startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import { deliveriesWithBodies } from "../../src/delivery/outbox.ts";

const W = "0x1111111111111111111111111111111111111111";
const X = "0x2222222222222222222222222222222222222222";
const C = "0x3333333333333333333333333333333333333333";
const V = "0x4444444444444444444444444444444444444444";
const USDT = "0xdac17f958d2ee523a2206206994597c13d831ec7";
const ETH = 10n ** 18n;

type Json = Record<string, any>;

async function watch(client: TestClient, address: string, network = "eth"): Promise<string> {
  const res = await client.request("POST", "/v1/address-watch/addresses", { network_slug: network, address });
  expect(res.status).toBe(201);
  return ((await res.json()) as Json).watch_id;
}

async function events(client: TestClient, query = ""): Promise<{ status: number; text: string; body: Json }> {
  const res = await client.request("GET", `/v1/address-watch/events${query}`);
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) };
}

async function count(d: TestDaemon, table: "blocks" | "events" | "deliveries" | "block_subscriptions" | "usage_daily"): Promise<number> {
  const row = await d.ctx.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
  return Number(row.n);
}

async function counts(d: TestDaemon) {
  return {
    blocks: await count(d, "blocks"),
    events: await count(d, "events"),
    deliveries: await count(d, "deliveries"),
    subscriptions: await count(d, "block_subscriptions"),
  };
}

const post = (d: TestDaemon, body: string, headers: Record<string, string> = {}) =>
  fetch(`${d.url}/ingest/blocks`, { method: "POST", body, headers: { "Content-Type": "application/json", ...headers } });

describe("POST /ingest/blocks access", () => {
  let d: TestDaemon;
  let off: TestDaemon;
  beforeAll(async () => {
    d = await startTestDaemon({ config: { ingest: { body_limit_bytes: 4096 } } });
    off = await startTestDaemon({ config: { ingest: { token: "" } } });
  });
  afterAll(async () => {
    await d.stop();
    await off.stop();
  });

  it("answers 404 Not found. when no ingest token is configured", async () => {
    const res = await post(off, "{}", { Authorization: "Bearer " });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: "Not found." });
  });

  it.each([
    ["no Authorization header", {}],
    ["a wrong token", { Authorization: "Bearer nope" }],
    ["the right token under another scheme", { Authorization: `Basic ${INGEST_TOKEN}` }],
    ["an empty bearer token", { Authorization: "Bearer " }],
  ])("refuses %s with 401", async (_case, headers) => {
    const res = await post(d, JSON.stringify({ network: "eth", height: 1, hash: "0xb", transactions: [] }), headers);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: "Invalid ingest token." });
    expect(await count(d, "blocks")).toBe(0);
  });

  it("refuses a body over ingest.body_limit_bytes with 413", async () => {
    const res = await d.ingest({ network: "eth", height: 1, hash: "0xb", transactions: [], pad: "x".repeat(5000) });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: "Request body exceeds 4096 bytes." });
  });

  it("answers 400 for a body that is not JSON", async () => {
    const res = await d.ingest("{not json");
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: "Invalid JSON body." });
  });

  it("accepts an empty array as a batch of nothing", async () => {
    const res = await d.ingest([]);
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ blocks: 0, events: 0 });
  });
});

describe("ingest and matching", () => {
  let d: TestDaemon;
  let a: TestClient;
  let b: TestClient;
  let watchA: string;
  let watchB: string;
  const height = 19_000_000;

  // Every kind of hit on W, in transaction order.
  const block = {
    network: "eth",
    height,
    hash: "0xb1",
    parent_hash: "0xb0",
    timestamp: 1763750000,
    transactions: [
      { hash: "0xt1", from: X, to: W, value: (ETH * 3n / 2n).toString() }, // payment
      { hash: "0xt2", from: W.toUpperCase().replace("0X", "0x"), to: X, value: (ETH / 4n).toString() }, // payout, mixed case
      { hash: "0xt3", from: W, to: C, value: "0" }, // zero-value contract call: no movement, one `other`
      { hash: "0xt4", from: W, to: W, value: "7" }, // self-transfer: in and out
      { hash: "0xt5", from: X, to: USDT, value: "0", transfers: [{ asset: USDT, from: X, to: W, value: "2500000", decimals: 6 }] }, // token payment
      { hash: "0xt6", from: X, to: C, value: "0", transfers: [{ asset: USDT, from: W, to: X, value: "0" }] }, // zero-value transfer
      { hash: "0xt7", from: X, to: C, value: "9", transfers: [] }, // nobody watched
      { hash: "0xt8", from: X, to: null, value: "1" }, // contract creation
      { hash: "0xt9", from: X, to: V, value: "5" }, // account B's address
    ],
  };

  beforeAll(async () => {
    d = await startTestDaemon();
    a = await d.client();
    b = await d.client();
    watchA = await watch(a, W);
    watchB = await watch(b, V);
  });
  afterAll(() => d.stop());

  it("stores the block and writes one event per hit, plus a block event for each watching account", async () => {
    const res = await d.ingest(block);
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ blocks: 1, events: 10 });

    const listed = (await events(a)).body.events as Json[];
    const created_at = listed[0].created_at;
    expect(created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/);
    const wallet = (type: string, direction: string, tx: string, asset: string | null, amount: string, amount_raw: string) => ({
      type,
      direction,
      watch_id: watchA,
      network: "eth",
      address: W,
      tx_hash: tx,
      block_height: height,
      block_hash: "0xb1",
      asset,
      token_standard: asset === null ? null : "erc20",
      token_id: null,
      amount,
      amount_raw,
      internal: false,
      created_at,
      removed: false,
    });
    expect(listed.map(({ id, ...rest }) => rest)).toEqual([
      {
        type: "block",
        network: "eth",
        block_height: height,
        block_hash: "0xb1",
        tx_count: 9,
        transactions: ["0xt1", "0xt2", "0xt3", "0xt4", "0xt5", "0xt6", "0xt7", "0xt8", "0xt9"],
        created_at,
        removed: false,
      },
      wallet("payment", "in", "0xt1", null, "1.5", "1500000000000000000"),
      wallet("payout", "out", "0xt2", null, "0.25", "250000000000000000"),
      wallet("other", "out", "0xt3", null, "0", "0"),
      wallet("payment", "in", "0xt4", null, "0.000000000000000007", "7"),
      wallet("payout", "out", "0xt4", null, "0.000000000000000007", "7"),
      wallet("payment", "in", "0xt5", USDT, "2.5", "2500000"),
      wallet("other", "out", "0xt6", USDT, "0", "0"),
    ]);
    // Keys in contract order, ids unique.
    expect(Object.keys(listed[1])).toEqual([
      "id", "type", "direction", "watch_id", "network", "address", "tx_hash", "block_height", "block_hash",
      "asset", "token_standard", "token_id", "amount", "amount_raw", "internal", "created_at", "removed",
    ]);
    expect(new Set(listed.map((e) => e.id)).size).toBe(listed.length);

    const listedB = (await events(b)).body.events as Json[];
    expect(listedB.map((e) => [e.type, e.watch_id ?? null, e.tx_hash ?? null])).toEqual([
      ["block", null, null],
      ["payment", watchB, "0xt9"],
    ]);
  });

  it("adds nothing when the same block is sent again", async () => {
    const before = await counts(d);
    const res = await d.ingest(block);
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ blocks: 0, events: 0 });
    expect(await counts(d)).toEqual(before);
  });

  it("counts the events in each account's usage of the day", async () => {
    const usage = async (c: TestClient) => {
      const res = await c.request("GET", "/v1/account/usage?days=1");
      return ((await res.json()) as Json).series[0].events;
    };
    expect(await usage(a)).toBe(8);
    expect(await usage(b)).toBe(2);
  });

  it("rejects a batch whose second block lacks transactions[3].hash and stores none of it", async () => {
    const before = await counts(d);
    const good = { network: "eth", height: height + 1, hash: "0xb2", transactions: [{ hash: "0xu1", from: X, to: W, value: "1" }] };
    const bad = {
      network: "eth",
      height: height + 2,
      hash: "0xb3",
      transactions: [1, 2, 3, 4].map((i) => (i === 4 ? { from: X, to: W, value: "1" } : { hash: `0xv${i}`, from: X, to: W, value: "1" })),
    };
    const res = await d.ingest([good, bad]);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: "[1].transactions[3].hash is required" });
    expect(await counts(d)).toEqual(before);
  });

  it("rejects a single block naming the field without a position prefix", async () => {
    const res = await d.ingest({ network: "eth", height: 1, hash: "0xb9", transactions: [{ hash: "0xw", value: "1.0" }] });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'transactions[0].value must be an integer string in the smallest unit without a decimal point (got "1.0")' });
  });

  it("rejects a value sent as a JSON number (1e30) saying why, and stores nothing", async () => {
    const before = await counts(d);
    const res = await d.ingest({ network: "eth", height: height + 1, hash: "0xb2", transactions: [{ hash: "0xn1", from: X, to: W, value: 1e30 }] });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: 'transactions[0].value must be an integer string in the smallest unit such as "1000000", not a JSON number (got 1e+30): a number cannot carry every digit of an amount',
    });
    expect(await counts(d)).toEqual(before);
  });

  it("rejects a network that is not configured and stores nothing", async () => {
    const before = await counts(d);
    const res = await d.ingest([
      { network: "eth", height: height + 1, hash: "0xb2", transactions: [] },
      { network: "dogecoin", height: 1, hash: "0xd1", transactions: [] },
    ]);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: "Unknown network: dogecoin" });
    expect(await counts(d)).toEqual(before);
  });

  it("stores a block sent twice in one batch once", async () => {
    const dup = { network: "eth", height: height + 1, hash: "0xb2", transactions: [{ hash: "0xu1", from: X, to: W, value: "1" }] };
    const res = await d.ingest([dup, dup]);
    expect(await res.json()).toEqual({ blocks: 1, events: 3 });
  });

  it("gives a transaction seen again in another canonical block no second wallet event", async () => {
    const again = { network: "eth", height: height + 2, hash: "0xb3-again", transactions: [{ hash: "0xu1", from: X, to: W, value: "1" }] };
    const res = await d.ingest(again);
    // The new block is stored and announced; the payment to W was already reported.
    expect(await res.json()).toEqual({ blocks: 1, events: 2 });
  });

  it("stores blocks of a network nobody watches without events", async () => {
    const res = await d.ingest({ network: "btc", height: 900_000, hash: "00ab", transactions: [{ hash: "tx", from: null, to: "bc1qx", value: "5" }] });
    expect(await res.json()).toEqual({ blocks: 1, events: 0 });
  });

  it("keeps each network's tip at its highest stored height", async () => {
    await d.ingest({ network: "eth", height: height - 5, hash: "0xold", transactions: [] });
    expect(await networkTips(d.ctx.db, ["eth", "btc", "sol"])).toEqual(
      new Map([
        ["eth", height + 2],
        ["btc", 900_000],
      ]),
    );
  });

  it("lists only the caller's events and refuses another account's wallet event id as a cursor", async () => {
    const mine = (await events(a)).body.events as Json[];
    expect(mine.every((e) => e.type === "block" || e.watch_id === watchA)).toBe(true);
    const wallet = mine.find((e) => e.type !== "block") as Json;
    const res = await events(b, `?after=${wallet.id}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: `Unknown cursor: ${wallet.id}` });
  });

  it("gives a block event one id, the same for every account that received it, usable as either's cursor", async () => {
    const blockOf = async (c: TestClient) => ((await events(c)).body.events as Json[]).find((e) => e.block_hash === "0xb1" && e.type === "block") as Json;
    const [ofA, ofB] = [await blockOf(a), await blockOf(b)];
    expect(ofA).toEqual(ofB);
    expect((await events(b, `?after=${ofA.id}`)).status).toBe(200);
  });
});

describe("webhook outbox", () => {
  let d: TestDaemon;
  let sink: WebhookSink;
  const clients: Record<string, TestClient> = {};

  beforeAll(async () => {
    d = await startTestDaemon();
    sink = startWebhookSink();
    const setup: [string, Json | null][] = [
      ["enabled", { url: sink.url, enabled: true }],
      ["disabled", { url: sink.url, enabled: false }],
      ["filtered", { url: sink.url, enabled: true, events: { payment: false, block: true, block_networks: ["btc"] } }],
      ["no-url", null],
    ];
    for (const [name, webhook] of setup) {
      const c = await d.client({ name, credits: name === "enabled" ? 1_000_000 : 0 });
      await watch(c, W);
      if (webhook) expect((await c.request("PUT", "/v1/address-watch/webhook", webhook)).status).toBe(200);
      clients[name] = c;
    }
  });
  afterAll(async () => {
    await d.stop();
    await sink.stop();
  });

  const deliveriesOf = (accountId: string) =>
    deliveriesWithBodies(d.ctx.db).select(["event_id", "event_type", "kind", "network", "body"]).where("account_id", "=", accountId).orderBy("created_at").execute();

  it("queues a delivery only when the webhook is enabled, has a URL and its filters pass", async () => {
    const res = await d.ingest({
      network: "eth",
      height: 1,
      hash: "0xbb",
      transactions: [
        { hash: "0xp", from: X, to: W, value: "1" },
        { hash: "0xq", from: W, to: X, value: "1" },
      ],
    });
    expect(await res.json()).toEqual({ blocks: 1, events: 12 });

    const enabled = await deliveriesOf(clients.enabled.accountId);
    expect(enabled.map((r) => [r.kind, r.event_type, r.network]).sort()).toEqual([
      ["event", "block", "eth"],
      ["event", "payment", "eth"],
      ["event", "payout", "eth"],
    ]);
    expect(await deliveriesOf(clients.disabled.accountId)).toEqual([]);
    expect(await deliveriesOf(clients["no-url"].accountId)).toEqual([]);
    // payment off, block only on btc: the payout alone goes out.
    expect((await deliveriesOf(clients.filtered.accountId)).map((r) => r.event_type)).toEqual(["payout"]);
  });

  it("stores events for every account whatever its webhook settings", async () => {
    for (const c of Object.values(clients)) expect(((await events(c)).body.events as Json[]).length).toBe(3);
  });

  it("queues the exact bytes the events listing returns for each event", async () => {
    const { text } = await events(clients.enabled);
    const items = text.slice('{"events":['.length, text.lastIndexOf('],"next_after"'));
    const queued = await deliveriesOf(clients.enabled.accountId);
    const byId = new Map(queued.map((r) => [r.event_id, r.body]));
    const listed = (JSON.parse(text).events as Json[]).map((e) => byId.get(e.id));
    expect(listed.join(",")).toBe(items);
  });

  it("delivers those bytes to the receiver", async () => {
    const received = await sink.waitFor(3);
    const { body } = await events(clients.enabled);
    const listed = new Map((body.events as Json[]).map((e) => [e.id, JSON.stringify(e)]));
    for (const r of received) expect(r.body).toBe(listed.get(JSON.parse(r.body).id) as string);
  });
});
