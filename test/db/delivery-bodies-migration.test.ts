import { afterAll, beforeAll, expect, it } from "bun:test";
import type { Kysely, Migrator } from "kysely";
import type { DB } from "../../src/db/schema.ts";
import { getDelivery, listDeliveries } from "../../src/delivery/admin.ts";
import { type MigrationScratch, migrationScratch } from "../support/migration-scratch.ts";

// 0036_delivery_bodies moves each delivery's body out of its outbox row into `delivery_bodies`:
// every body comes over byte for byte (a block event's several KB, escapes, text beyond ASCII),
// the column leaves the row, and the outbox reads each delivery with its body as before. Undone,
// the bodies are back in their rows. On SQLite, and on PostgreSQL when the suite runs there.

let scratch: MigrationScratch;
let db: Kysely<any>;
let migrator: Migrator;

const blockBody = JSON.stringify({
  id: "evt_block",
  type: "block",
  network: "eth",
  block_height: 19_000_000,
  transactions: Array.from({ length: 100 }, (_, i) => `0x${i.toString(16).padStart(64, "0")}`),
  removed: false,
});
const bodies: Record<string, string> = {
  dlv_block: blockBody,
  dlv_escapes: '{"memo":"tab\\there, quote \\" and \\\\ backslash","note":"ünïcødé 名前 💥"}',
  dlv_settled: '{"id":"evt_settled","removed":true}',
};

const row = (id: string, status: string, createdAt: number) => ({
  id,
  account_id: "acc_shop",
  endpoint_id: "whe_shop",
  kind: "event",
  event_type: id === "dlv_block" ? "block" : "payment",
  network: "eth",
  event_id: `evt_${id}`,
  payment_id: null,
  sequence: null,
  body: bodies[id],
  status,
  attempts: status === "pending" ? 0 : 1,
  next_attempt_at: createdAt,
  lease_until: null,
  last_status_code: status === "pending" ? null : 200,
  last_error: null,
  credits_charged: 0,
  created_at: createdAt,
  updated_at: createdAt,
  completed_at: status === "pending" ? null : createdAt + 5,
  hold_until_height: null,
  replay: 0,
});

beforeAll(async () => {
  scratch = await migrationScratch("0035_unsettled_due_index");
  ({ db, migrator } = scratch);
  await db
    .insertInto("deliveries")
    .values([row("dlv_block", "pending", 1000), row("dlv_escapes", "pending", 2000), row("dlv_settled", "succeeded", 3000)])
    .execute();
  const { error, results } = await migrator.migrateToLatest();
  expect(error).toBeUndefined();
  expect(results?.map((r) => r.migrationName)).toContain("0036_delivery_bodies");
});

afterAll(() => scratch.close());

it("copies every body byte for byte and drops the column from the outbox row", async () => {
  const moved = await db.selectFrom("delivery_bodies").selectAll().orderBy("delivery_id").execute();
  expect(moved).toEqual(Object.keys(bodies).sort().map((id) => ({ delivery_id: id, body: bodies[id] })));
  const columns = (await db.introspection.getTables()).find((t) => t.name === "deliveries")?.columns.map((c) => c.name);
  expect(columns).toContain("status");
  expect(columns).not.toContain("body");
});

it("reads each delivery with its body as before, one by one and listed", async () => {
  const typed = db as Kysely<DB>;
  expect((await getDelivery(typed, "dlv_block"))?.body).toBe(blockBody);
  expect((await getDelivery(typed, "dlv_escapes"))?.body).toBe(bodies.dlv_escapes);
  const listed = await listDeliveries(typed, { accountId: "acc_shop", limit: 10 });
  expect(listed.map((d) => [d.id, d.status, d.body])).toEqual([
    ["dlv_settled", "succeeded", bodies.dlv_settled],
    ["dlv_escapes", "pending", bodies.dlv_escapes],
    ["dlv_block", "pending", blockBody],
  ]);
});

it("undone, puts every body back in its row", async () => {
  expect((await migrator.migrateTo("0035_unsettled_due_index")).error).toBeUndefined();
  const back = await db.selectFrom("deliveries").select(["id", "body"]).orderBy("id").execute();
  expect(back).toEqual(Object.keys(bodies).sort().map((id) => ({ id, body: bodies[id] })));
  expect((await db.introspection.getTables()).some((t) => t.name === "delivery_bodies")).toBe(false);
  expect((await migrator.migrateToLatest()).error).toBeUndefined();
  expect((await getDelivery(db as Kysely<DB>, "dlv_settled"))?.body).toBe(bodies.dlv_settled);
});
