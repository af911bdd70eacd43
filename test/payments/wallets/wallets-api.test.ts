import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { sql } from "kysely";
import { isPostgres } from "../../../src/db/dialect/detect.ts";
import { jsonLogger } from "../../../src/lib/log.ts";
import { backupSqlite } from "../../../src/ops/backup.ts";
import { descriptorChecksum } from "../../../src/payments/wallets/descriptor-checksum.ts";
import { addressDeriver } from "../../../src/payments/wallets/derive-address.ts";
import { parseWalletKey } from "../../../src/payments/wallets/wallet-key.ts";
import { manualClock } from "../../support/clock.ts";
import { onPostgres, startTestDaemon, type TestClient, type TestDaemon } from "../../support/harness.ts";
import { accountXpub, BIP380, BIP84, BIP86, neutered, viemAddress } from "./vectors.ts";

// Payment wallets through the real API (docs/payments.md): PUT, GET and DELETE
// /v1/payments/wallets, orders that take the next index, and every refusal, which stores nothing.
// The key a wallet is given never comes back out: not in an answer, a table, a log line or a backup.

type Body = Record<string, any>;

const clock = manualClock();
const logLines: string[] = [];
let td: TestDaemon;

// Litecoin's regtest address forms (rltc1…, m/n…, Q…).
const LTC = { family: "btc", decimals: 8, confirmations: 1, bech32_hrp: "rltc", p2pkh_version: 111, p2sh_version: 58 };
const TPUB = { public: 0x043587cf, private: 0x04358394 };
const ETH_XPUB = accountXpub("m/44'/60'/0'");
// The test phrase's Ethereum account k: each test that makes orders has its own, so their indices start at 0.
const ethKey = (k: number) => accountXpub(`m/44'/60'/${k}'`);
const ethAddress = (k: number, i: number) => viemAddress(i, k);
const AT = "2026-11-21T12:00:00.000+00:00";

beforeAll(async () => {
  td = await startTestDaemon({
    clock,
    log: jsonLogger((line) => logLines.push(line), () => clock.now(), "debug"),
    config: { rate_limit: { per_key_rps: 1000 }, networks: { ltc: LTC } },
  });
});
afterAll(async () => {
  await td.stop();
});

async function call(c: TestClient, method: string, path: string, body?: unknown): Promise<{ status: number; body: Body }> {
  const res = await c.request(method, path, body);
  return { status: res.status, body: (await res.json()) as Body };
}

const put = (c: TestClient, network: string, body: unknown) => call(c, "PUT", `/v1/payments/wallets/${network}`, body);
const wallets = async (c: TestClient) => (await call(c, "GET", "/v1/payments/wallets")).body.wallets as Body[];
const order = (c: TestClient, body: Body) => call(c, "POST", "/v1/payments", { network: "eth", amount: "1", ...body });
const walletRows = async () => Number((await td.ctx.db.selectFrom("payment_wallets").select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow()).n);

describe("PUT, GET and DELETE /v1/payments/wallets", () => {
  test("PUT answers the wallet, never its key; GET lists it", async () => {
    const c = await td.client();
    expect(await wallets(c)).toEqual([]);
    const res = await put(c, "eth", { key: ETH_XPUB });
    expect(res).toEqual({ status: 200, body: { network: "eth", kind: "bip44", fingerprint: "60b68b69", next_index: 0, gap_limit: 20, unused_tail: 0, created_at: AT } });
    expect(await wallets(c)).toEqual([res.body]);
    // Another account sees none of it.
    expect(await wallets(await td.client())).toEqual([]);
  });

  test("the same key again, in another spelling, changes only gap_limit; left out, it keeps its own", async () => {
    const c = await td.client();
    const zpub = neutered(BIP84.zprv, { public: 0x04b24746, private: 0x04b2430c });
    const first = await put(c, "btc", { key: zpub, gap_limit: 30 });
    expect(first.body).toMatchObject({ kind: "wpkh", gap_limit: 30, next_index: 0 });
    expect((await order(c, { network: "btc", order_id: "z-1", amount: "0.001" })).status).toBe(201);
    clock.advance(1000);
    const xpub = (parseWalletKey("btc", zpub) as { key: { xpub: string } }).key.xpub;
    const descriptor = `wpkh([73c5da0a/84h/0h/0h]${xpub}/0/*)`;
    const again = await put(c, "btc", { key: `${descriptor}#${descriptorChecksum(descriptor)}`, gap_limit: 50 });
    expect(again.body).toEqual({ ...first.body, gap_limit: 50, next_index: 1, unused_tail: 1 });
    expect((await put(c, "btc", { key: zpub })).body.gap_limit).toBe(50);
    expect(await wallets(c)).toHaveLength(1);
  });

  test("a new key starts at its index 0; the first key put back resumes where it stopped", async () => {
    const c = await td.client();
    const first = (await put(c, "eth", { key: ethKey(1) })).body;
    for (const id of ["a-1", "a-2"]) expect((await order(c, { order_id: id })).body.derivation_index).toBeNumber();
    const second = (await put(c, "eth", { key: ethKey(2) })).body;
    expect(second).toMatchObject({ next_index: 0 });
    expect(second.fingerprint).not.toBe(first.fingerprint);
    expect((await order(c, { order_id: "b-1" })).body).toMatchObject({ derivation_index: 0, address: ethAddress(2, 0) });
    expect((await put(c, "eth", { key: ethKey(1) })).body).toMatchObject({ fingerprint: first.fingerprint, next_index: 2, gap_limit: 20 });
    expect((await order(c, { order_id: "a-3" })).body).toMatchObject({ derivation_index: 2, address: ethAddress(1, 2) });
    expect(await wallets(c)).toHaveLength(1);
  });

  test("DELETE removes the wallet; orders made keep their addresses; again it is 404, and orders need an address", async () => {
    const c = await td.client();
    await put(c, "eth", { key: ethKey(3) });
    const made = (await order(c, { order_id: "d-1" })).body;
    expect(await call(c, "DELETE", "/v1/payments/wallets/eth")).toEqual({ status: 200, body: { network: "eth", deleted: true } });
    expect(await wallets(c)).toEqual([]);
    expect((await call(c, "GET", `/v1/payments/${made.payment_id}`)).body).toMatchObject({ address: made.address, derivation_index: 0 });
    expect(await call(c, "DELETE", "/v1/payments/wallets/eth")).toEqual({ status: 404, body: { error: "Wallet not found." } });
    expect(await order(c, { order_id: "d-2" })).toEqual({ status: 400, body: { error: "address is required: no wallet for network eth" } });
  });
});

describe("orders without an address", () => {
  test("take indices 0, 1, 2… and the addresses the key derives (viem's for eth); refused requests in between take none", async () => {
    const c = await td.client();
    await put(c, "eth", { key: ethKey(4) });
    const indices: number[] = [];
    const addresses: string[] = [];
    for (let i = 0; i < 3; i++) {
      const made = await order(c, { order_id: `o-${i}` });
      expect(made.status).toBe(201);
      indices.push(made.body.derivation_index);
      addresses.push(made.body.address);
      // Refused: a repeated order_id, a bad amount, an unknown network.
      expect((await order(c, { order_id: `o-${i}` })).status).toBe(409);
      expect((await order(c, { order_id: `x-${i}`, amount: "-1" })).status).toBe(400);
      expect((await order(c, { order_id: `y-${i}`, network: "nope" })).status).toBe(400);
    }
    expect(indices).toEqual([0, 1, 2]);
    expect(addresses).toEqual([0, 1, 2].map((i) => ethAddress(4, i)));
    expect((await wallets(c))[0]).toMatchObject({ next_index: 3, unused_tail: 3 });
  });

  test("a btc-family order takes the descriptor's address in the network's own form", async () => {
    const c = await td.client();
    const tpub = accountXpub("m/84'/1'/0'", TPUB);
    expect((await put(c, "ltc", { key: `sh(wpkh(${tpub}/0/*))` })).body.kind).toBe("sh-wpkh");
    const made = await order(c, { order_id: "l-1", network: "ltc", amount: "0.5" });
    const expected = addressDeriver((parseWalletKey("btc", `sh(wpkh(${tpub}/0/*))`) as { key: any }).key, LTC as any)(0);
    expect(made.body).toMatchObject({ address: expected, derivation_index: 0, amount: "0.5" });
    expect(expected).toStartWith("Q");
  });

  test("an address a wallet handed out is never another order's: a given-address order on it is 409, and another account with the same key passes it over", async () => {
    const first = await td.client();
    const second = await td.client();
    await put(first, "eth", { key: ethKey(5) });
    await put(second, "eth", { key: ethKey(5) });
    const a = (await order(first, { order_id: "s-1" })).body;
    expect(await order(second, { order_id: "given", address: a.address })).toEqual({
      status: 409,
      body: { error: "Address belongs to an order of a payment wallet; it is never used for another order." },
    });
    // The second account's wallet starts at index 0, whose address the first account's order has.
    const b = (await order(second, { order_id: "s-1" })).body;
    expect([a.derivation_index, b.derivation_index]).toEqual([0, 1]);
    expect(b.address).not.toBe(a.address);
    expect((await wallets(second))[0]).toMatchObject({ next_index: 2 });
  });
});

describe("refusals store nothing and say why", () => {
  const tpub = accountXpub("m/84'/1'/0'", TPUB);
  const zpub = neutered(BIP84.zprv, { public: 0x04b24746, private: 0x04b2430c });

  test.each([
    ["a bare xprv", "btc", { key: BIP380.xprv }, "This is a private key; give the extended public key."],
    ["an xprv in a descriptor", "btc", { key: `tr([73c5da0a/86h/0h/0h]${BIP86.xprv}/0/*)` }, "This is a private key; give the extended public key."],
    ["a private key with another field wrong", "eth", { key: BIP380.xprv, gap_limit: 0 }, "This is a private key; give the extended public key."],
    ["a bad checksum", "ltc", { key: `wpkh(${tpub}/0/*)#qqqqqqqq` }, "the descriptor checksum does not match: the descriptor was changed or mistyped"],
    ["a hardened step after the key", "ltc", { key: `wpkh(${tpub}/0h/*)` }, "a hardened step after the key (0h) needs the private key; put the key derived at that step in the descriptor"],
    ["a btc-family key on an evm network", "eth", { key: zpub }, "a zpub is a Bitcoin-family key; evm networks take the account's xpub"],
    ["a descriptor on a tron network", "tron", { key: `wpkh(${tpub}/0/*)` }, "tron networks take an account-level extended public key (xpub…), not an output descriptor or a path"],
    ["a solana network", "sol", { key: ETH_XPUB }, "payment wallets derive addresses on btc, evm and tron networks, not solana"],
    ["unparsable text", "ltc", { key: "my wallet" }, "key is neither an output descriptor nor an extended public key: its base58check encoding, checksum or length is wrong"],
    ["gap_limit 0", "eth", { key: ETH_XPUB, gap_limit: 0 }, "gap_limit must be at least 1"],
    ["gap_limit 10^9", "eth", { key: ETH_XPUB, gap_limit: 1_000_000_000 }, "gap_limit must be at most 10000"],
    ["a fractional gap_limit", "eth", { key: ETH_XPUB, gap_limit: 2.5 }, "gap_limit must be an integer"],
    ["no key", "eth", { gap_limit: 5 }, "key is required"],
    ["a key too long to be one", "eth", { key: `${ETH_XPUB}${" ".repeat(1000)}` }, "key must be at most 1000 characters"],
    ["an unknown field", "eth", { key: ETH_XPUB, label: "x" }, "label is not a known field"],
    ["an unknown network", "nope", { key: ETH_XPUB }, "Unknown network: nope"],
  ])("%s: 400", async (_case, network, body, error) => {
    const c = await td.client();
    await put(c, "eth", { key: ETH_XPUB, gap_limit: 7 });
    const before = await walletRows();
    expect(await put(c, network, body)).toEqual({ status: 400, body: { error } });
    expect(await walletRows()).toBe(before);
    expect(await wallets(c)).toEqual([expect.objectContaining({ network: "eth", gap_limit: 7, fingerprint: "60b68b69" })]);
  });
});

describe("the key never comes back out", () => {
  test("a private key put is in no table, no log line and no backup; the public key is stored sealed only", async () => {
    const c = await td.client();
    for (const key of [BIP380.xprv, `wpkh(${BIP84.zprv}/0/*)`, BIP380.wif]) expect((await put(c, "btc", { key })).status).toBe(400);
    const publicKey = ETH_XPUB;
    expect((await put(c, "eth", { key: publicKey })).status).toBe(200);
    expect((await order(c, { order_id: "k-1" })).status).toBe(201);

    const secrets = [BIP380.xprv, BIP84.zprv, BIP380.wif, publicKey];
    // Every table, every row, as stored.
    const dump = JSON.stringify(await everyRow());
    for (const s of secrets) expect(dump).not.toContain(s);
    const sealed = await td.ctx.db.selectFrom("payment_wallets").select("key_sealed").where("fingerprint", "=", "60b68b69").execute();
    expect(sealed.length).toBeGreaterThan(0);
    for (const row of sealed) expect(row.key_sealed).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(logLines.length).toBeGreaterThan(0);
    for (const s of secrets) expect(logLines.filter((l) => l.includes(s))).toEqual([]);
    if (onPostgres) return;
    // SQLite: the database file itself and a backup of it, byte for byte (PostgreSQL's pg_dump copies the tables read above).
    const file = join(td.dir, "backup.db");
    expect(backupSqlite(join(td.dir, "chainwatch.db"), file).ok).toBe(true);
    for (const path of [file, join(td.dir, "chainwatch.db"), join(td.dir, "chainwatch.db-wal")]) {
      const bytes = readFileSync(path).toString("latin1");
      for (const s of secrets) expect(bytes.includes(s)).toBe(false);
    }
  });
});

/** Every row of every table of the test's database. */
async function everyRow(): Promise<Record<string, unknown[]>> {
  const db = td.ctx.db;
  const tables = isPostgres(db)
    ? (await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema()`.execute(db)).rows
    : (await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db)).rows;
  const out: Record<string, unknown[]> = {};
  for (const { name } of tables) out[name] = (await sql`select * from ${sql.table(name)}`.execute(db)).rows;
  expect(Object.keys(out)).toContain("payment_wallets");
  return out;
}
