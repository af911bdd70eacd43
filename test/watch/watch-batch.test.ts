import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createClient } from "../../src/client/client.ts";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";

// Batch watch and unwatch: each item answered in order as the single route answers it, slots
// taken item by item, a malformed body refused whole with nothing written.

const PATH = "/v1/address-watch/addresses/batch";
let td: TestDaemon;

beforeAll(async () => {
  td = await startTestDaemon({ config: { rate_limit: { per_key_rps: 10_000 } } });
});
afterAll(async () => {
  await td.stop();
});

const evm = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
type Body = Record<string, any>;

async function call(c: TestClient, method: "POST" | "DELETE", body: unknown, path = PATH): Promise<{ status: number; body: Body }> {
  const res = await c.request(method, path, body);
  return { status: res.status, body: (await res.json()) as Body };
}

async function listed(c: TestClient): Promise<Body[]> {
  return (await call(c, "GET" as "POST", undefined, "/v1/address-watch/addresses")).body.addresses;
}

async function slots(c: TestClient): Promise<{ used: number; limit: number }> {
  const res = await c.request("GET", "/v1/address-watch/account");
  return ((await res.json()) as Body).address_slots;
}

describe("batch watch", () => {
  test("answers each item in order as the single add does: normalized records, the same record again, each refusal's sentence", async () => {
    const c = await td.client({ slots: 10 });
    const single = await call(c, "POST", { network_slug: "eth", address: evm(1) }, "/v1/address-watch/addresses");
    expect(single.status).toBe(201);
    const res = await call(c, "POST", {
      addresses: [
        { network_slug: "eth", address: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed" },
        { network_slug: "nope", address: evm(2) },
        { network_slug: "eth", address: evm(1) },
        { network_slug: "eth", address: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD" },
        { network_slug: "btc", address: "BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4" },
        { network_slug: "eth", address: "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed" },
      ],
    });
    expect(res.status).toBe(200);
    const [first, unknown, again, badChecksum, btc, sameAsFirst] = res.body.results;
    expect(first).toEqual({ watch_id: expect.stringMatching(/^aw_/), network_slug: "eth", address: "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed", created_at: expect.any(String) });
    expect(unknown).toEqual({ error: "Unknown network: nope" });
    expect(again).toEqual(single.body);
    expect(badChecksum).toEqual({ error: "Invalid address for network eth: its mixed-case letters do not match its EIP-55 checksum; check it for a mistyped character" });
    expect(btc).toMatchObject({ network_slug: "btc", address: "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4" });
    // An address given twice in one batch is one watch: the second answers the first's record.
    expect(sameAsFirst).toEqual(first);
    expect(res.body.results).toHaveLength(6);
    expect((await listed(c)).map((w) => w.watch_id)).toEqual([single.body.watch_id, first.watch_id, btc.watch_id]);
    expect(await slots(c)).toEqual({ used: 3, limit: 10 });
  });

  test("takes slots item by item: new addresses past the cap are refused, ones already watched still answer", async () => {
    const c = await td.client({ slots: 3 });
    await call(c, "POST", { network_slug: "eth", address: evm(100) }, "/v1/address-watch/addresses");
    const res = await call(c, "POST", { addresses: [evm(101), evm(102), evm(103), evm(100), evm(104)].map((address) => ({ network_slug: "eth", address })) });
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: Body) => r.error ?? r.address)).toEqual([evm(101), evm(102), "Address slot limit reached.", evm(100), "Address slot limit reached."]);
    expect(await slots(c)).toEqual({ used: 3, limit: 3 });
  });

  test.each([
    ["an empty list", { addresses: [] }, "addresses must have at least 1 item"],
    ["over 1,000 items", { addresses: Array.from({ length: 1001 }, (_, i) => ({ network_slug: "eth", address: evm(i + 1) })) }, "addresses must have at most 1000 items"],
    ["an item missing its address", { addresses: [{ network_slug: "eth", address: evm(7) }, { network_slug: "eth" }] }, "addresses[1].address is required"],
    ["an item with an unknown field", { addresses: [{ network_slug: "eth", address: evm(7), label: "x" }] }, "addresses[0].label is not a known field"],
    ["no list", { watch_ids: ["aw_1"] }, "addresses is required"],
  ])("refuses %s whole, writing nothing", async (_, body, error) => {
    const c = await td.client({ slots: 2000 });
    const res = await call(c, "POST", body);
    expect(res).toEqual({ status: 400, body: { error } });
    expect(await listed(c)).toEqual([]);
  });

  test("1,000 items are one call", async () => {
    const c = await td.client({ slots: 1000 });
    const res = await call(c, "POST", { addresses: Array.from({ length: 1000 }, (_, i) => ({ network_slug: "eth", address: evm(5000 + i) })) });
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: Body) => r.address)).toEqual(Array.from({ length: 1000 }, (_, i) => evm(5000 + i)));
    expect(await slots(c)).toEqual({ used: 1000, limit: 1000 });
  });
});

describe("batch unwatch", () => {
  test("answers each id in order: deleted, or not found for another account's, an unknown one, or one already deleted in the batch", async () => {
    const [c, other] = [await td.client({ slots: 5 }), await td.client({ slots: 5 })];
    const added = (await call(c, "POST", { addresses: [evm(1), evm(2), evm(3)].map((address) => ({ network_slug: "eth", address })) })).body.results as Body[];
    const theirs = (await call(other, "POST", { network_slug: "eth", address: evm(1) }, "/v1/address-watch/addresses")).body.watch_id;
    const [a, b, kept] = added.map((w) => w.watch_id);
    const res = await call(c, "DELETE", { watch_ids: [b, theirs, "aw_000000000000000000000000", a, b] });
    expect(res).toEqual({
      status: 200,
      body: { results: [{ watch_id: b, deleted: true }, { error: "Watch not found." }, { error: "Watch not found." }, { watch_id: a, deleted: true }, { error: "Watch not found." }] },
    });
    expect((await listed(c)).map((w) => w.watch_id)).toEqual([kept]);
    expect((await listed(other)).map((w) => w.watch_id)).toEqual([theirs]);
    expect(await slots(c)).toEqual({ used: 1, limit: 5 });
  });

  test.each([
    ["an empty list", { watch_ids: [] }, "watch_ids must have at least 1 item"],
    ["an id that is not a string", { watch_ids: ["aw_1", 7] }, "watch_ids[1] must be a string"],
  ])("refuses %s whole", async (_, body, error) => {
    const c = await td.client();
    expect(await call(c, "DELETE", body)).toEqual({ status: 400, body: { error } });
  });
});

describe("the SDK", () => {
  test("addWatches and deleteWatches answer the batch routes' bodies", async () => {
    const c = await td.client({ slots: 5 });
    const sdk = createClient({ baseUrl: td.url, apiKey: c.apiKey, secret: c.secret });
    const added = await sdk.addWatches({ addresses: [{ network_slug: "eth", address: evm(9) }, { network_slug: "eth", address: "0x12" }] });
    expect(added.results[1]).toEqual({ error: "Invalid address for network eth" });
    const first = added.results[0] as { watch_id: string };
    expect(await sdk.deleteWatches({ watch_ids: [first.watch_id] })).toEqual({ results: [{ watch_id: first.watch_id, deleted: true }] });
  });
});
