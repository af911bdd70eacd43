import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type ChainwatchClient, createClient, type FetchLike, type WatchEvent } from "chainwatch/client";
import { manualClock } from "../support/clock.ts";
import { startTestDaemon, type TestDaemon } from "../support/harness.ts";

const clock = manualClock();
const AT = "2026-11-21T12:00:00.000+00:00";
const WATCHED = "0x00000000000000000000000000000000000000e1";
const SENDER = "0x1111111111111111111111111111111111111111";
let td: TestDaemon;
let client: ChainwatchClient;
let watchId: string;
/** The query string of every page the SDK asked for. */
const pages: string[] = [];

const block = (height: number) => ({
  network: "eth",
  height,
  hash: `0xb${height}`,
  parent_hash: `0xb${height - 1}`,
  timestamp: 1_763_750_000 + height,
  transactions: [{ hash: `0x7${height}`, from: SENDER, to: WATCHED, value: `${height}000000000000000000` }],
});

beforeAll(async () => {
  td = await startTestDaemon({ clock, config: { rate_limit: { per_key_rps: 1000 } } });
  const c = await td.client();
  const recordingFetch: FetchLike = (url, init) => {
    pages.push(new URL(url).search);
    return fetch(url, init);
  };
  client = createClient({ baseUrl: td.url, apiKey: c.apiKey, secret: c.secret, now: clock.now, fetch: recordingFetch });
  watchId = (await client.addWatch({ network_slug: "eth", address: WATCHED })).watch_id;
  // Three blocks, each paying the watched address: a payment and a block event each, six in all.
  expect((await td.ingest([block(1), block(2), block(3)])).status).toBe(202);
});
afterAll(async () => {
  await td.stop();
});

async function collect(events: AsyncIterable<WatchEvent>): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

describe("client.events()", () => {
  test("follows next_after across pages until it is null, yielding every event once, oldest first", async () => {
    const all = await client.listEvents({ limit: 1000 });
    expect(all.events.length).toBe(6);
    expect(all.next_after).toBe(null);
    // Each block's own event is stored before the payment it carries.
    expect(all.events.map((e) => [e.type, e.block_height])).toEqual([
      ["block", 1],
      ["payment", 1],
      ["block", 2],
      ["payment", 2],
      ["block", 3],
      ["payment", 3],
    ]);
    expect(all.events[0]).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: "block",
      network: "eth",
      block_height: 1,
      block_hash: "0xb1",
      tx_count: 1,
      transactions: ["0x71"],
      removed: false,
      created_at: AT,
    });
    expect(all.events[1]).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: "payment",
      direction: "in",
      watch_id: watchId,
      network: "eth",
      address: WATCHED,
      tx_hash: "0x71",
      block_height: 1,
      block_hash: "0xb1",
      asset: null,
      token_standard: null,
      token_id: null,
      amount: "1",
      amount_raw: "1000000000000000000",
      internal: false,
      removed: false,
      created_at: AT,
    });

    pages.length = 0;
    const walked = await collect(client.events({ limit: 2 }));
    expect(walked).toEqual(all.events);
    const ids = all.events.map((e) => e.id);
    expect(pages).toEqual(["?limit=2", `?limit=2&after=${ids[1]}`, `?limit=2&after=${ids[3]}`]);
  });

  test("keeps the filters on every page", async () => {
    pages.length = 0;
    const blocks = await collect(client.events({ type: "block", network: "eth", limit: 1 }));
    expect(blocks.map((e) => [e.type, e.block_height])).toEqual([
      ["block", 1],
      ["block", 2],
      ["block", 3],
    ]);
    expect(pages.length).toBe(3);
    for (const p of pages) expect(p).toStartWith("?type=block&network=eth&limit=1");
  });

  test("starts after the given cursor", async () => {
    const all = (await client.listEvents()).events;
    const rest = await collect(client.events({ after: all[3].id, limit: 1 }));
    expect(rest).toEqual(all.slice(4));
  });

  test("stops asking for pages when the loop breaks", async () => {
    pages.length = 0;
    for await (const event of client.events({ limit: 2 })) {
      expect([event.type, event.block_height]).toEqual(["block", 1]);
      break;
    }
    expect(pages).toEqual(["?limit=2"]);
  });

  test("an account without events yields nothing after one request", async () => {
    const c = await td.client();
    const empty = createClient({ baseUrl: td.url, apiKey: c.apiKey, secret: c.secret, now: clock.now });
    expect(await collect(empty.events())).toEqual([]);
  });
});
