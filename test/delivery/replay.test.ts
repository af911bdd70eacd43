import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { deliveryPrice } from "../../src/billing/pricing.ts";
import { SCHEMAS } from "../../src/http/openapi/schemas.ts";
import { networkTips } from "../../src/ingest/blocks.ts";
import { replayEvents } from "../../src/webhooks/replay.ts";
import { signIn } from "../cabinet/support.ts";
import { manualClock } from "../support/clock.ts";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import { expectedXSignature, until } from "./fixtures.ts";
import { allSucceeded, block, deliveriesOf, ingest, watchAndHook } from "./recovery-support.ts";

// POST /v1/address-watch/events/replay (docs/webhooks.md): stored events sent again as new
// deliveries, for a receiver that lost data or moved to a new URL.

const W = "0x1111111111111111111111111111111111111111";
const V = "0x2222222222222222222222222222222222222222";

type Event = Record<string, unknown> & { id: string; type: string; removed: boolean };

const clock = manualClock();
const t0 = clock.now();
const sec = (ms: number) => ms / 1000;
let td: TestDaemon;
let oldSink: WebhookSink;
let newSink: WebhookSink;
let otherSink: WebhookSink;
let a: TestClient;
let other: TestClient;
/** The account's events as listed (= as first delivered), oldest first. */
let listed: string[];
let firstIds: Set<string>;

async function listing(c: TestClient): Promise<string[]> {
  const res = await c.request("GET", "/v1/address-watch/events?limit=1000");
  return ((await res.json()) as { events: Event[] }).events.map((e) => JSON.stringify(e));
}

const replay = (body: unknown, c: TestClient = a) => c.request("POST", "/v1/address-watch/events/replay", body);

/** The replayed deliveries of the account, oldest first, and waits until the receiver answered each. */
async function replayedDeliveries(count: number) {
  const rows = await until(
    async () => (await deliveriesOf(td, a.accountId)).filter((d) => d.replay === 1),
    (ds) => ds.length === count,
  );
  await allSucceeded(td, a.accountId, rows.filter((d) => d.status !== "held").map((d) => d.id));
  return (await deliveriesOf(td, a.accountId)).filter((d) => d.replay === 1);
}

/** The Standard Webhooks signature a receiver expects (the reference package would also refuse the manual clock's old timestamps). */
function standardSignature(secret: string, r: { headers: Record<string, string>; body: string }): string {
  const key = Buffer.from(secret.slice("whsec_".length), "base64");
  return `v1,${createHmac("sha256", key).update(`${r.headers["webhook-id"]}.${r.headers["webhook-timestamp"]}.${r.body}`).digest("base64")}`;
}

/** Bodies in a stable order: replayed deliveries are not ordered on every database. */
const sorted = (xs: readonly string[]) => [...xs].sort();

beforeAll(async () => {
  td = await startTestDaemon({ clock, config: { delivery: { backoff_seconds: [5], max_attempts: 2, concurrency: 1 }, rate_limit: { per_key_rps: 1000 } } });
  oldSink = startWebhookSink();
  newSink = startWebhookSink();
  otherSink = startWebhookSink();
  a = await td.client({ credits: 1_000_000 });
  other = await td.client({ credits: 1_000_000 });
  await watchAndHook(a, W, oldSink.url);
  await watchAndHook(other, V, otherSink.url);
  // Four blocks ten seconds apart, each paying W: a's events are block 1, payment 1, block 2, …
  for (let h = 1; h <= 4; h++) {
    await ingest(td, block(h, h === 2 ? [W, V] : [W]));
    clock.advance(10_000);
  }
  const first = await until(
    () => deliveriesOf(td, a.accountId),
    (ds) => ds.length === 8 && ds.every((d) => d.status === "succeeded"),
  );
  firstIds = new Set(first.map((d) => d.id));
  listed = await listing(a);
  expect(listed.length).toBe(8);
  // Every first delivery arrived once; in which order is not promised (a block's two events share a queue time).
  expect(sorted(oldSink.received.map((r) => r.body))).toEqual(sorted(first.map((d) => d.body)));
  await until(() => deliveriesOf(td, other.accountId), (ds) => ds.length === 5 && ds.every((d) => d.status === "succeeded"));
});
afterAll(async () => {
  await td.stop();
  for (const s of [oldSink, newSink, otherSink]) await s.stop();
});

describe("replaying to a receiver that moved to a new URL", () => {
  test("sends the events of a time range again: new ids, the same bodies byte for byte, X-Webhook-Replay: true", async () => {
    expect((await a.request("PUT", "/v1/address-watch/webhook", { url: newSink.url, enabled: true })).status).toBe(200);
    const otherBefore = otherSink.received.length;
    const res = await replay({ since: sec(t0 + 10_000), until: sec(t0 + 30_000) });
    expect(res.status).toBe(202);
    const answer = await res.json();
    expect(answer).toEqual({ queued: 4, next_after: null });
    expect(Value.Check(SCHEMAS.ReplayResult, answer)).toBe(true);

    const rows = await replayedDeliveries(4);
    const received = await newSink.waitFor(4);
    // Blocks 2 and 3: their block and payment events, as listed.
    expect(sorted(received.map((r) => r.body))).toEqual(sorted(listed.slice(2, 6)));
    expect(rows.map((d) => d.body)).toEqual(listed.slice(2, 6));
    for (const r of received) {
      expect(r.headers["x-webhook-replay"]).toBe("true");
      expect(r.headers["x-webhook-test"]).toBeUndefined();
      expect(firstIds.has(r.headers["webhook-id"])).toBe(false);
      expect(r.headers["x-webhook-id"]).toBe(r.headers["webhook-id"]);
      expect(r.headers["webhook-signature"]).toBe(standardSignature(a.webhookSecret, r));
      expect(r.headers["x-signature"]).toBe(expectedXSignature(a.webhookSecret, r.headers["x-timestamp"], r.body));
    }
    expect(new Set(received.map((r) => r.headers["webhook-id"]))).toEqual(new Set(rows.map((d) => d.id)));
    // Billed like any delivery, on success.
    for (const d of rows) {
      expect(d).toMatchObject({ kind: "event", replay: 1, status: "succeeded", attempts: 1 });
      expect(Number(d.credits_charged)).toBe(deliveryPrice(td.config, d));
    }
    expect(oldSink.received.length).toBe(8);
    expect(otherSink.received.length).toBe(otherBefore);
    const page = await (await (await signIn(td, a.accountId)).get("/cabinet/deliveries")).text();
    expect(page).toMatch(/<span class="badge succeeded">succeeded<\/span> <span class="muted">replay<\/span><\/td>\n<td data-label="Event"><a href="\/cabinet\/deliveries\/dlv_[0-9a-f]+">payment<\/a><\/td><td data-label="Network">eth<\/td>/);
    expect((await deliveriesOf(td, other.accountId)).every((d) => d.replay === 0)).toBe(true);
  });

  test("a replayed delivery keeps the header on every retry", async () => {
    newSink.received.length = 0;
    newSink.respond((_req, i) => new Response(i === 0 ? "busy" : "ok", { status: i === 0 ? 503 : 200 }));
    const res = await replay({ since: sec(t0), until: sec(t0 + 10_000), types: ["payment"] });
    expect(await res.json()).toEqual({ queued: 1, next_after: null });
    // The first attempt is recorded (its retry due in 5 s) before the clock moves on.
    await until(
      async () => (await deliveriesOf(td, a.accountId)).filter((d) => d.replay === 1 && d.status === "pending"),
      (ds) => ds.length === 1 && ds[0].attempts === 1,
    );
    clock.advance(5_000);
    td.daemon.deps.wakeDelivery();
    await newSink.waitFor(2);
    expect(newSink.received.map((r) => [r.headers["x-webhook-replay"], r.body])).toEqual([
      ["true", listed[1]],
      ["true", listed[1]],
    ]);
    expect(newSink.received[0].headers["webhook-id"]).toBe(newSink.received[1].headers["webhook-id"]);
    newSink.respond(() => new Response("ok"));
    await replayedDeliveries(5);
  });

  test("types and networks narrow it, and the webhook's current filters apply", async () => {
    const blocks = await replay({ since: sec(t0), types: ["block"] });
    expect(await blocks.json()).toEqual({ queued: 4, next_after: null });
    const elsewhere = await replay({ since: sec(t0), networks: ["bsc"] });
    expect(await elsewhere.json()).toEqual({ queued: 0, next_after: null });
    expect((await a.request("PUT", "/v1/address-watch/webhook", { url: newSink.url, enabled: true, events: { block: false } })).status).toBe(200);
    const filtered = await replay({ since: sec(t0), networks: ["eth"] });
    expect(await filtered.json()).toEqual({ queued: 4, next_after: null });
    expect((await a.request("PUT", "/v1/address-watch/webhook", { url: newSink.url, enabled: true, events: { block: true } })).status).toBe(200);

    const rows = await replayedDeliveries(13);
    const types = rows.slice(5).map((d) => d.event_type);
    expect(types).toEqual(["block", "block", "block", "block", "payment", "payment", "payment", "payment"]);
  });

  test("after continues from an event id, and pages of a few events walk every event exactly once", async () => {
    const ids = listed.map((b) => (JSON.parse(b) as Event).id);
    const res = await replay({ after: ids[5] });
    expect(await res.json()).toEqual({ queued: 2, next_after: null });
    const rows = await replayedDeliveries(15);
    expect(rows.slice(13).map((d) => d.event_id)).toEqual(ids.slice(6));

    // Through the use case with three events a page: the cursor of each page starts the next.
    const deps = { db: td.ctx.db, clock, config: td.config, wakeDelivery: td.daemon.deps.wakeDelivery, pageSize: 3 };
    const pages: unknown[] = [];
    let body: Record<string, unknown> = { since: sec(t0) };
    for (;;) {
      const page = await replayEvents({ ...deps, chainTips: networkTips }, a.accountId, "default", body);
      pages.push(page);
      if (!page.ok || page.nextAfter === null) break;
      body = { after: page.nextAfter };
    }
    expect(pages).toEqual([
      { ok: true, queued: 3, nextAfter: ids[2] },
      { ok: true, queued: 3, nextAfter: ids[5] },
      { ok: true, queued: 2, nextAfter: null },
    ]);
    const walked = await replayedDeliveries(23);
    expect(walked.slice(15).map((d) => d.event_id)).toEqual(ids);
  });

  test("an event a reorg removed is replayed as it is listed, with removed: true", async () => {
    // c4 replaces b4 at height 4 and pays nobody: b4's two events are removed.
    await ingest(td, { ...block(4, []), hash: "0xc4" });
    const after = await listing(a);
    const removed = after.filter((b) => (JSON.parse(b) as Event).removed);
    expect(removed.map((b) => (JSON.parse(b) as Event).type)).toEqual(["block", "payment"]);
    // The reorg's own deliveries go out first: the two removals and c4's block event.
    await until(
      () => deliveriesOf(td, a.accountId),
      (ds) => ds.filter((d) => d.replay === 0).length === 11 && ds.every((d) => d.status === "succeeded"),
    );
    const res = await replay({ since: sec(t0 + 30_000), until: sec(t0 + 40_000) });
    expect(await res.json()).toEqual({ queued: 2, next_after: null });
    const rows = await replayedDeliveries(25);
    expect(rows.slice(23).map((d) => d.body)).toEqual(removed);
  });

  test("min_confirmations holds a replayed event until its block has them, like its first delivery", async () => {
    expect((await a.request("PUT", "/v1/address-watch/webhook", { url: newSink.url, enabled: true, events: { min_confirmations: 2 } })).status).toBe(200);
    // c4 (the tip) has one confirmation; block 3 has two.
    const res = await replay({ since: sec(t0 + 20_000), types: ["block"] });
    expect(await res.json()).toEqual({ queued: 3, next_after: null });
    const rows = (await replayedDeliveries(28)).slice(25);
    expect(rows.map((d) => [JSON.parse(d.body).block_hash, JSON.parse(d.body).removed, d.status, d.hold_until_height])).toEqual([
      ["0xb3", false, "succeeded", null],
      ["0xb4", true, "succeeded", null],
      ["0xc4", false, "held", 5],
    ]);
    expect((await a.request("PUT", "/v1/address-watch/webhook", { url: newSink.url, enabled: true, events: { min_confirmations: 0 } })).status).toBe(200);
  });
});

describe("what a replay refuses", () => {
  it.each([
    ["neither since nor after", {}, "since or after is required"],
    ["both since and after", { since: sec(t0), after: "evt_x" }, "give since or after, not both"],
    ["since not an integer", { since: "2026-11-21" }, "since must be an integer"],
    ["since in the future", { since: sec(t0) + 86_400 }, "since must not be in the future"],
    ["until equal to since", { since: sec(t0), until: sec(t0) }, "until must be after since"],
    ["an unknown type", { since: sec(t0), types: ["payment", "transfer"] }, "types[1] must be one of payment, payout, other, block"],
    ["types not a list", { since: sec(t0), types: "block" }, "types must be an array"],
    ["an unknown network", { since: sec(t0), networks: ["eth", "nope"] }, "Unknown network: nope"],
    ["an unknown cursor", { after: "evt_nope" }, "Unknown cursor: evt_nope"],
    ["an unknown field", { since: sec(t0), url: "https://example.com" }, "url is not a known field"],
  ])("%s: 400 naming the field", async (_name, body, error) => {
    const res = await replay(body);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error });
  });

  test("another account's event is an unknown cursor", async () => {
    const theirs = (await listing(other)).map((b) => JSON.parse(b) as Event).find((e) => e.type === "payment") as Event;
    const res = await replay({ after: theirs.id });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: `Unknown cursor: ${theirs.id}` });
  });

  test("a webhook that is off or has no URL: nothing would arrive, so nothing is queued", async () => {
    const before = (await deliveriesOf(td, a.accountId)).length;
    expect((await a.request("PUT", "/v1/address-watch/webhook", { url: newSink.url, enabled: false })).status).toBe(200);
    const off = await replay({ since: sec(t0) });
    expect(off.status).toBe(400);
    expect(await off.json()).toEqual({ error: "Webhook is disabled." });
    expect((await a.request("PUT", "/v1/address-watch/webhook", { url: null, enabled: false })).status).toBe(200);
    const none = await replay({ since: sec(t0) });
    expect(none.status).toBe(400);
    expect(await none.json()).toEqual({ error: "No webhook URL configured." });
    expect((await deliveriesOf(td, a.accountId)).length).toBe(before);
  });

  test("refuses invalid JSON and an unsigned request", async () => {
    const bad = await replay("not json");
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: "Invalid JSON body." });
    const unsigned = await fetch(`${td.url}/v1/address-watch/events/replay`, { method: "POST", body: "{}", headers: { "content-type": "application/json" } });
    expect(unsigned.status).toBe(401);
    expect(await unsigned.json()).toEqual({ error: "Missing X-Api-Key" });
  });
});
