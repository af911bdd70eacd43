import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { createAccount } from "../../src/accounts/accounts.ts";
import { type Context, openContext } from "../../src/daemon.ts";
import { undeliveredEventIds } from "../../src/delivery/outbox.ts";
import { deliveryStatements } from "../../src/delivery/sql/dialects.ts";
import { onPostgres, testConfig } from "../support/harness.ts";
import { insertDeliveryRows, storedDelivery } from "../support/delivery-rows.ts";
import { sqlitePlan } from "../support/query-plan.ts";

// The due index holds only the rows still to be sent (pending, held, paused): settling a row
// deletes its entry instead of moving it among the settled rows, which cost every delivery an
// index entry written (bench:outbox-shapes: 43.5 against 37.2 µs a delivery in process). These
// tests hold it to that, and hold the queries that must find unsettled rows to reading it. SQLite
// only: its planner judges by the query alone, and dbstat counts an index's entries; PostgreSQL's
// claim plan is test/db/claim-plan.test.ts's.

const NOW = Date.now();
let dir: string;
let ctx: Context;
let accountId: string;

/** How many entries the due index holds: its cells, on every page (an index keeps an entry in each, interior ones too). */
async function dueEntries(): Promise<number> {
  const { rows } = await sql<{ n: number | null }>`select sum(ncell) as n from dbstat where name = 'deliveries_due'`.execute(ctx.db);
  return Number(rows[0]?.n ?? 0);
}

describe.skipIf(onPostgres)("the due index holds only rows still to be sent", () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "chainwatch-due-index-"));
    ctx = await openContext(testConfig(dir), { env: {} });
    const made = await createAccount(ctx, { name: "due", credits: 0 });
    if (!made.ok) throw new Error(made.error);
    accountId = made.account.id;
    // 200 rows in each of the five states: the index spans several pages.
    const states = ["pending", "held", "paused", "succeeded", "failed"] as const;
    const rows = states.flatMap((status, s) =>
      Array.from({ length: 200 }, (_, i) => ({
        ...storedDelivery({ id: `dlv_${s}_${String(i).padStart(3, "0")}`, accountId, kind: "event", status: status === "succeeded" || status === "failed" ? status : "pending", at: NOW - 1000 }),
        status,
      })),
    );
    for (let at = 0; at < rows.length; at += 100) await insertDeliveryRows(ctx.db, rows.slice(at, at + 100));
  });

  afterAll(async () => {
    await ctx?.db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it("settled rows have no entry, and a row settled now loses its own", async () => {
    expect(await dueEntries()).toBe(600);
    const settled = await ctx.db.executeQuery(deliveryStatements(ctx.db).markSucceeded(["dlv_0_000", "dlv_0_001"], 200, 0, NOW));
    expect(settled.rows.map((r) => r.id).sort()).toEqual(["dlv_0_000", "dlv_0_001"]);
    expect(await dueEntries()).toBe(598);
  });

  it("the claim reads due rows from it, in due order, each row's body by key", async () => {
    const statements = deliveryStatements(ctx.db);
    const body = "SEARCH b USING INDEX sqlite_autoindex_delivery_bodies_1 (delivery_id=?)";
    for (const replay of [false, true]) {
      const plan = await sqlitePlan(ctx.db, statements.selectDueDeliveries(NOW, 32, replay));
      expect(plan).toContain("SEARCH d USING INDEX deliveries_due (status=? AND replay=? AND next_attempt_at<?)");
      expect(plan).toContain(body);
      expect(plan).not.toContain("TEMP B-TREE");
    }
    const newest = await sqlitePlan(ctx.db, statements.selectNewestDueDeliveries(NOW - 5000, NOW, 8));
    expect(newest).toContain("SEARCH d USING INDEX deliveries_due (status=? AND replay=? AND next_attempt_at>? AND next_attempt_at<?)");
    expect(newest).toContain(body);
    expect(newest).not.toContain("TEMP B-TREE");
  });

  it("the events retention keeps undelivered events by a search, never a walk of the outbox", async () => {
    const plan = await sqlitePlan(ctx.db, ctx.db.selectFrom("events").select("id").where("id", "not in", undeliveredEventIds(ctx.db)).compile());
    expect(plan).toContain("SEARCH deliveries USING INDEX deliveries_due");
    expect(plan).not.toMatch(/SCAN deliveries\b/);
  });
});
