import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { setAccountPlan } from "../../src/accounts/accounts.ts";
import { manualClock } from "../support/clock.ts";
import { rfc3339 } from "../../src/lib/time.ts";
import { onPostgres, startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";

const PATH = "/v1/address-watch/addresses";
const clock = manualClock();
let td: TestDaemon;

beforeAll(async () => {
  td = await startTestDaemon({
    clock,
    // The clock stands still, so every request falls in one rate-limit window: lift the limit.
    config: {
      rate_limit: { per_key_rps: 10_000 },
      networks: {
        labels: { family: "generic" },
        // Litecoin regtest: its own prefix and version bytes, so Bitcoin's addresses are not its.
        "ltc-regtest": { family: "btc", bech32_hrp: "rltc", p2pkh_version: 111, p2sh_version: 58 },
      },
    },
  });
});

afterAll(async () => {
  await td.stop();
});

/** A distinct, valid, lower-case EVM address for each n. */
const evmAddress = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;

async function add(client: TestClient, network_slug: string, address: string) {
  const res = await client.request("POST", PATH, { network_slug, address });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function list(client: TestClient) {
  const res = await client.request("GET", PATH);
  expect(res.status).toBe(200);
  return ((await res.json()) as { addresses: Record<string, unknown>[] }).addresses;
}

async function slots(client: TestClient) {
  const res = await client.request("GET", "/v1/address-watch/account");
  expect(res.status).toBe(200);
  return ((await res.json()) as { address_slots: { used: number; limit: number } }).address_slots;
}

describe("adding a watched address", () => {
  it.each([
    ["eth", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"],
    ["bsc", "0x52908400098527886E0F7030069857D2E4169EE7", "0x52908400098527886e0f7030069857d2e4169ee7"],
    ["polygon", "0xde709f2102306220921060314715629080e2fb77", "0xde709f2102306220921060314715629080e2fb77"],
    ["btc", "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa", "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa"],
    ["btc", "BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"],
    ["tron", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"],
    ["sol", "So11111111111111111111111111111111111111112", "So11111111111111111111111111111111111111112"],
    ["labels", "  Cold Wallet #3 ", "Cold Wallet #3"],
    // BIP173's P2WPKH program under the regtest prefix, and its P2PKH (version 111).
    ["ltc-regtest", "RLTC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7K693XS3", "rltc1qw508d6qejxtdg4y5r3zarvary0c5xw7k693xs3"],
    ["ltc-regtest", "mrCDrCybB6J1vRfbwM5hemdJz73FwDBC8r", "mrCDrCybB6J1vRfbwM5hemdJz73FwDBC8r"],
  ])("on %s stores %p as %p and answers 201 with the record", async (network, input, normalized) => {
    const client = await td.client({ slots: 1 });
    const { status, body } = await add(client, network, input);
    expect(status).toBe(201);
    expect(body).toEqual({
      watch_id: expect.stringMatching(/^aw_[0-9a-f]{24}$/),
      network_slug: network,
      address: normalized,
      created_at: rfc3339(clock.now()),
    });
    expect(await list(client)).toEqual([body]);
  });

  it.each([
    ["eth", "39 hex digits", "0x52908400098527886e0f7030069857d2e4169ee"],
    ["eth", "a bitcoin address", "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa"],
    ["tron", "a Tron address with a broken checksum", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u"],
    ["tron", "a bitcoin address", "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa"],
    ["sol", "base58 of fewer than 32 bytes", "So1111111111111111111111111111111"],
    ["sol", "a character outside base58", "So1111111111111111111111111111111111111111O"],
    ["labels", "a blank string", "   "],
    ["labels", "129 characters", "x".repeat(129)],
    ["eth", "an empty string", ""],
  ])("on %s refuses %s with 400", async (network, _case, address) => {
    const client = await td.client({ slots: 1 });
    const { status, body } = await add(client, network, address);
    expect({ status, body }).toEqual({ status: 400, body: { error: `Invalid address for network ${network}` } });
    expect(await list(client)).toEqual([]);
  });

  it("on eth refuses an EIP-55 address with one letter's case flipped with 400 saying the checksum does not match", async () => {
    const client = await td.client({ slots: 1 });
    const { status, body } = await add(client, "eth", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD");
    expect({ status, body }).toEqual({ status: 400, body: { error: "Invalid address for network eth: its mixed-case letters do not match its EIP-55 checksum; check it for a mistyped character" } });
    expect(await list(client)).toEqual([]);
  });

  const BTC_FORMS = "P2PKH (version 0), P2SH (version 5), or bech32/bech32m with prefix bc1";
  const LTC_REGTEST_FORMS = "P2PKH (version 111), P2SH (version 58), or bech32/bech32m with prefix rltc1";
  it.each([
    ["btc", "a base58check address with a broken checksum", "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb", BTC_FORMS],
    ["btc", "a bech32 address with one character changed", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5", BTC_FORMS],
    ["btc", "an EVM address", "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed", BTC_FORMS],
    ["btc", "a testnet address", "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx", BTC_FORMS],
    ["btc", "a Litecoin regtest address", "rltc1qw508d6qejxtdg4y5r3zarvary0c5xw7k693xs3", BTC_FORMS],
    ["ltc-regtest", "a Bitcoin mainnet P2WPKH address", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", LTC_REGTEST_FORMS],
    ["ltc-regtest", "a Bitcoin mainnet P2PKH address", "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa", LTC_REGTEST_FORMS],
  ])("on %s refuses %s with 400 naming the forms it accepts", async (network, _case, address, forms) => {
    const client = await td.client({ slots: 1 });
    const { status, body } = await add(client, network, address);
    expect({ status, body }).toEqual({ status: 400, body: { error: `Invalid address for network ${network}: expected ${forms}` } });
    expect(await list(client)).toEqual([]);
  });

  it.each<[string, unknown, string]>([
    ["a missing network_slug", { address: evmAddress(1) }, "network_slug is required"],
    ["a missing address", { network_slug: "eth" }, "address is required"],
    ["an empty body", {}, "network_slug is required"],
    ["a number for network_slug", { network_slug: 1, address: evmAddress(1) }, "network_slug must be a string"],
    ["a number for address", { network_slug: "eth", address: 1 }, "address must be a string"],
    ["an empty network_slug", { network_slug: "", address: evmAddress(1) }, "network_slug must not be empty"],
    ["an unknown field", { network_slug: "eth", address: evmAddress(1), label: "x" }, "label is not a known field"],
    ["an array body", [{ network_slug: "eth", address: evmAddress(1) }], "body must be an object"],
    ["an unknown network", { network_slug: "doge", address: evmAddress(1) }, "Unknown network: doge"],
    ["a network slug in the wrong case", { network_slug: "ETH", address: evmAddress(1) }, "Unknown network: ETH"],
    ["an object prototype key as network", { network_slug: "constructor", address: evmAddress(1) }, "Unknown network: constructor"],
    ["bad JSON", '{"network_slug": "eth",', "Invalid JSON body."],
  ])("refuses %s with 400 naming the problem", async (_case, body, error) => {
    const client = await td.client({ slots: 1 });
    const res = await client.request("POST", PATH, body);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error });
  });

  it("answers 200 with the same record when the same address is added again, in another spelling", async () => {
    const client = await td.client({ slots: 3 });
    const first = await add(client, "eth", "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed");
    clock.advance(1000);
    const again = await add(client, "eth", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed");
    expect(first.status).toBe(201);
    expect(again).toEqual({ status: 200, body: first.body });
    expect(await list(client)).toEqual([first.body]);
    expect(await slots(client)).toEqual({ used: 1, limit: 3 });
  });

  it("watches the same address on two networks as two records", async () => {
    const client = await td.client({ slots: 2 });
    const eth = await add(client, "eth", evmAddress(7));
    const bsc = await add(client, "bsc", evmAddress(7));
    expect([eth.status, bsc.status]).toEqual([201, 201]);
    expect(eth.body.watch_id).not.toBe(bsc.body.watch_id);
    expect(await slots(client)).toEqual({ used: 2, limit: 2 });
  });

  it("gives two accounts watching the same address separate records", async () => {
    const alice = await td.client({ slots: 1 });
    const bob = await td.client({ slots: 1 });
    const a = await add(alice, "eth", evmAddress(8));
    const b = await add(bob, "eth", evmAddress(8));
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.watch_id).not.toBe(b.body.watch_id);
  });
});

describe("address slots", () => {
  it("refuses an address beyond the plan's slots with 403 and stores nothing", async () => {
    const client = await td.client({ slots: 2 });
    expect((await add(client, "eth", evmAddress(1))).status).toBe(201);
    expect((await add(client, "eth", evmAddress(2))).status).toBe(201);
    expect(await add(client, "eth", evmAddress(3))).toEqual({ status: 403, body: { error: "Address slot limit reached." } });
    expect((await list(client)).map((w) => w.address)).toEqual([evmAddress(1), evmAddress(2)]);
  });

  it("still answers 200 for an address already watched when every slot is taken", async () => {
    const client = await td.client({ slots: 1 });
    const first = await add(client, "eth", evmAddress(1));
    expect(await add(client, "eth", evmAddress(1))).toEqual({ status: 200, body: first.body });
  });

  it("refuses every address on the free plan, which has 0 slots", async () => {
    const client = await td.client({ slots: 5 });
    const moved = await setAccountPlan(td.ctx.db, td.ctx.clock, client.accountId, "free");
    expect(moved.ok).toBe(true);
    expect(await add(client, "eth", evmAddress(1))).toEqual({ status: 403, body: { error: "Address slot limit reached." } });
    expect(await slots(client)).toEqual({ used: 0, limit: 0 });
  });

  it("frees a slot when a watch is deleted", async () => {
    const client = await td.client({ slots: 1 });
    const first = await add(client, "eth", evmAddress(1));
    expect((await add(client, "eth", evmAddress(2))).status).toBe(403);
    const res = await client.request("DELETE", PATH, { watch_id: first.body.watch_id });
    expect(res.status).toBe(200);
    expect((await add(client, "eth", evmAddress(2))).status).toBe(201);
  });

  it("holds the cap under 12 concurrent adds at a 5-slot plan: exactly 5 created, 7 refused", async () => {
    const client = await td.client({ slots: 5 });
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => add(client, "eth", evmAddress(100 + i))));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([...Array(5).fill(201), ...Array(7).fill(403)]);
    const created = results.filter((r) => r.status === 201).map((r) => r.body.address).sort();
    expect((await list(client)).map((w) => w.address).sort()).toEqual(created);
    expect(await slots(client)).toEqual({ used: 5, limit: 5 });
  });

  // It writes SQLite's file directly; on PostgreSQL the 12 concurrent adds above race for real.
  it.skipIf(onPostgres)("counts a slot another process is taking at the same moment before deciding", async () => {
    // In one process bun:sqlite is synchronous, so HTTP requests cannot interleave a count and
    // an insert. The real race is another writer process (the CLI, a second daemon): this child
    // takes the last slot inside an open write transaction while the daemon handles an add. A
    // count read outside the add's own write transaction would still see 4 and let a 6th in.
    const client = await td.client({ slots: 5 });
    for (let n = 1; n <= 4; n++) expect((await add(client, "eth", evmAddress(n))).status).toBe(201);
    const child = Bun.spawn(
      [
        process.execPath,
        "-e",
        `import { Database } from "bun:sqlite";
         const db = new Database(${JSON.stringify(`${td.dir}/chainwatch.db`)});
         db.run("PRAGMA busy_timeout = 5000");
         db.run("BEGIN IMMEDIATE");
         db.run("INSERT INTO watches (id, account_id, network, address, created_at) VALUES (?, ?, 'eth', ?, 0)",
           ["aw_fromanotherprocess00000", ${JSON.stringify(client.accountId)}, ${JSON.stringify(evmAddress(5))}]);
         // As every writer of watches does: the account's count in the same transaction.
         db.run("UPDATE watch_counts SET watches = watches + 1 WHERE account_id = ?", [${JSON.stringify(client.accountId)}]);
         console.log("locked");
         await Bun.sleep(300);
         db.run("COMMIT");`,
      ],
      { stdout: "pipe", stderr: "inherit" },
    );
    const reader = child.stdout.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("locked\n");
    // The daemon's write transaction waits (busy_timeout) for the child's commit, then counts 5.
    expect(await add(client, "eth", evmAddress(6))).toEqual({ status: 403, body: { error: "Address slot limit reached." } });
    expect(await child.exited).toBe(0);
    expect(await slots(client)).toEqual({ used: 5, limit: 5 });
  });

  it("creates one record for 6 concurrent adds of the same address", async () => {
    const client = await td.client({ slots: 5 });
    const results = await Promise.all(Array.from({ length: 6 }, () => add(client, "eth", evmAddress(200))));
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
    expect(new Set(results.map((r) => r.body.watch_id)).size).toBe(1);
    expect(await slots(client)).toEqual({ used: 1, limit: 5 });
  });

  it("counts real watches in GET /v1/address-watch/account", async () => {
    const client = await td.client({ slots: 3 });
    expect(await slots(client)).toEqual({ used: 0, limit: 3 });
    const first = await add(client, "eth", evmAddress(1));
    await add(client, "btc", "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa");
    expect(await slots(client)).toEqual({ used: 2, limit: 3 });
    await client.request("DELETE", PATH, { watch_id: first.body.watch_id });
    expect(await slots(client)).toEqual({ used: 1, limit: 3 });
  });

  it("counts real watches in GET /v1/account", async () => {
    const client = await td.client({ slots: 4 });
    await add(client, "eth", evmAddress(1));
    const res = await client.request("GET", "/v1/account");
    expect(((await res.json()) as { address_slots: unknown }).address_slots).toEqual({ used: 1, limit: 4 });
  });
});

describe("listing watched addresses", () => {
  it("answers an empty list for an account that watches nothing", async () => {
    const client = await td.client();
    const res = await client.request("GET", PATH);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ addresses: [] });
  });

  it("lists the account's watches oldest first, in the record shape", async () => {
    const client = await td.client({ slots: 3 });
    const bodies = [];
    for (const [network, address] of [
      ["sol", "So11111111111111111111111111111111111111112"],
      ["eth", evmAddress(1)],
      ["btc", "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa"],
    ]) {
      clock.advance(1000);
      bodies.push((await add(client, network, address)).body);
    }
    expect(await list(client)).toEqual(bodies);
  });

  it("keeps insertion order for watches created in the same millisecond", async () => {
    const client = await td.client({ slots: 5 });
    const added = [];
    for (const n of [5, 3, 9, 1, 7]) added.push((await add(client, "eth", evmAddress(n))).body.address);
    expect((await list(client)).map((w) => w.address)).toEqual(added);
  });

  it("never shows another account's watches", async () => {
    const alice = await td.client({ slots: 2 });
    const bob = await td.client({ slots: 2 });
    await add(alice, "eth", evmAddress(1));
    const own = await add(bob, "eth", evmAddress(2));
    expect(await list(bob)).toEqual([own.body]);
  });
});

describe("deleting a watched address", () => {
  it("answers 200 with the id and removes it from the list", async () => {
    const client = await td.client({ slots: 2 });
    const keep = await add(client, "eth", evmAddress(1));
    const gone = await add(client, "eth", evmAddress(2));
    const res = await client.request("DELETE", PATH, { watch_id: gone.body.watch_id });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ watch_id: gone.body.watch_id, deleted: true });
    expect(await list(client)).toEqual([keep.body]);
  });

  it("answers 404 for a watch already deleted", async () => {
    const client = await td.client({ slots: 1 });
    const w = await add(client, "eth", evmAddress(1));
    await client.request("DELETE", PATH, { watch_id: w.body.watch_id });
    const res = await client.request("DELETE", PATH, { watch_id: w.body.watch_id });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: "Watch not found." });
  });

  it("answers 404 for an id that never existed", async () => {
    const client = await td.client();
    const res = await client.request("DELETE", PATH, { watch_id: "aw_000000000000000000000000" });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: "Watch not found." });
  });

  it("answers 404 for another account's watch and leaves it in place", async () => {
    const owner = await td.client({ slots: 1 });
    const stranger = await td.client({ slots: 1 });
    const w = await add(owner, "eth", evmAddress(1));
    const res = await stranger.request("DELETE", PATH, { watch_id: w.body.watch_id });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: "Watch not found." });
    expect(await list(owner)).toEqual([w.body]);
  });

  it.each<[string, unknown, string]>([
    ["a missing watch_id", {}, "watch_id is required"],
    ["a number for watch_id", { watch_id: 5 }, "watch_id must be a string"],
    ["no body at all", undefined, "watch_id is required"],
  ])("refuses %s with 400", async (_case, body, error) => {
    const client = await td.client();
    const res = await client.request("DELETE", PATH, body);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error });
  });
});
