import { expect, it } from "bun:test";
import { Migrator } from "kysely";
import { migrate, openDatabase } from "../../src/db/database.ts";
import { migrations } from "../../src/db/migrations/index.ts";

// 0007_reorg upgrades a database that already holds blocks and events.

it("keeps the newest block of a height canonical, and gives old events their block and removed: false", async () => {
  const db = openDatabase(":memory:");
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  expect((await migrator.migrateTo("0006_block_subscriptions")).error).toBeUndefined();
  const block = (hash: string, height: number, created_at: number) => ({ network: "eth", hash, height, parent_hash: null, timestamp: null, tx_count: 0, created_at });
  // Before reorgs were understood, a second hash at height 2 was stored beside the first.
  await db.insertInto("blocks").values([block("0xa1", 1, 10), block("0xa2", 2, 10), block("0xb2", 2, 20)]).execute();
  const body = '{"id":"evt_1","type":"block","network":"eth","block_height":2,"block_hash":"0xb2","tx_count":0,"transactions":[],"created_at":"x"}';
  await db.insertInto("events").values({ id: "evt_1", account_id: "*", type: "block", network: "eth", watch_id: null, dedupe_key: "block:eth:0xb2", body, created_at: 20 }).execute();

  expect((await migrator.migrateToLatest()).error).toBeUndefined();
  expect(await db.selectFrom("blocks").select(["hash", "status"]).orderBy("hash").execute()).toEqual([
    { hash: "0xa1", status: "canonical" },
    { hash: "0xa2", status: "orphaned" },
    { hash: "0xb2", status: "canonical" },
  ]);
  expect(await db.selectFrom("events").select(["body", "block_height", "block_hash"]).execute()).toEqual([
    { body: `${body.slice(0, -1)},"removed":false}`, block_height: 2, block_hash: "0xb2" },
  ]);
  await db.destroy();
});

it("applies 0007_reorg to a database that already ran a later-numbered migration", async () => {
  const db = openDatabase(":memory:");
  const { "0007_reorg": _skipped, ...others } = migrations;
  expect((await new Migrator({ db, provider: { getMigrations: async () => others } }).migrateToLatest()).error).toBeUndefined();
  expect(await migrate(db)).toEqual({ ok: true, applied: ["0007_reorg"] });
  await db.destroy();
});
