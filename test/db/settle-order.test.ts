import { afterAll, beforeAll, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAccount } from "../../src/accounts/accounts.ts";
import { type Context, openContext } from "../../src/daemon.ts";
import { deliveriesWithBodies, enqueueDelivery } from "../../src/delivery/outbox.ts";
import { recordOutcomes, type Settlement } from "../../src/delivery/settle.ts";
import { onPostgres, testConfig } from "../support/harness.ts";
import { defaultEndpointId } from "../support/endpoints.ts";

// Found by `bun run bench:deliver --database postgres --daemons 3` with the outbox spread over many
// accounts: settlements on several daemons charged their accounts in the order the batch met them,
// so two of them could lock two account rows in opposite orders — a deadlock on PostgreSQL (one
// rolled back after deadlock_timeout, its sends re-sent when their lease ran out). Here three
// contexts (three pools, as three daemons) settle batches naming two accounts in opposite orders.

const WRITERS = 3;
const SETTLEMENTS = 60;
let dir: string;
let writers: Context[];
let accounts: string[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chainwatch-settle-order-"));
  const config = testConfig(dir);
  const first = await openContext(config, { env: {} });
  writers = [first];
  for (let i = 1; i < WRITERS; i++) writers.push(onPostgres ? await openContext(config, { env: {} }) : first);
  accounts = [];
  for (const name of ["left", "right"]) {
    const made = await createAccount(first, { name, credits: 1_000_000 });
    if (!made.ok) throw new Error(made.error);
    accounts.push(made.account.id);
  }
});

afterAll(async () => {
  for (const w of new Set(writers)) await w.db.destroy();
  rmSync(dir, { recursive: true, force: true });
});

it("settlements racing over the same accounts in opposite orders all commit, each charge once", async () => {
  const db = writers[0].db;
  const nowMs = Date.now();
  const ids: string[][] = [];
  for (let i = 0; i < SETTLEMENTS; i++) {
    const pair = [];
    for (const accountId of i % 2 === 0 ? accounts : [...accounts].reverse())
      pair.push(await enqueueDelivery(db, { accountId, endpointId: await defaultEndpointId(db, accountId), kind: "event", eventType: "payment", network: "eth", body: "{}", nowMs }));
    ids.push(pair);
  }
  const rows = await deliveriesWithBodies(db).execute();
  const byId = new Map(rows.map((r) => [r.id, r]));
  const attempt = { url: "http://127.0.0.1/hook", startedAt: nowMs, durationMs: 1, statusCode: 200, error: null, snippet: null };
  const settled = await Promise.all(
    ids.map((pair, i) => {
      const items: Settlement[] = pair.map((id) => ({ delivery: byId.get(id)!, attempt, outcome: { ok: true, price: 1 } }));
      return recordOutcomes(writers[i % WRITERS].db, items, nowMs).then((s) => s.size);
    }),
  );
  expect(settled).toEqual(ids.map(() => 2));
  const credits = await db.selectFrom("accounts").select(["id", "credits"]).where("id", "in", accounts).execute();
  expect(credits.map((c) => Number(c.credits))).toEqual([1_000_000 - SETTLEMENTS, 1_000_000 - SETTLEMENTS]);
});
