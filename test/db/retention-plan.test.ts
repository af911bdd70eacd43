import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAccount } from "../../src/accounts/accounts.ts";
import { type Context, openContext } from "../../src/daemon.ts";
import { deletePrunable, oldestPrunable, pruneDeliveries } from "../../src/delivery/retention.ts";
import { onPostgres, testConfig } from "../support/harness.ts";
import { insertDeliveryRows, storedDelivery } from "../support/delivery-rows.ts";
import { sqlitePlan } from "../support/query-plan.ts";

// Found by timing the hourly prune on a large outbox: asked for settled rows by status, SQLite read
// every settled row through the due index and sorted them all for each chunk of 1,000 (and found the
// chunk's rows to delete the same way), so pruning 200,000 of 400,000 settled rows took 56 s of CPU
// with the write lock held about 280 ms a chunk. Each chunk must read its own rows from the
// retention index, in order, and delete them by key. SQLite's planner judges by the query alone;
// PostgreSQL's by its statistics, which read a table this small whole (at 200,000 rows it reads
// the retention index in order), so there only what the prune deletes is checked.

const DAY = 86_400_000;
const ROWS = 3_000;
let dir: string;
let ctx: Context;
const now = Date.now();

describe("the prune's plan reads only the rows it deletes", () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "chainwatch-retention-plan-"));
    ctx = await openContext(testConfig(dir), { env: {} });
    const made = await createAccount(ctx, { name: "settled", credits: 0 });
    if (!made.ok) throw new Error(made.error);
    // Settled long ago, settled lately, payment orders' (kept), and pending ones.
    const row = (i: number) =>
      storedDelivery({
        id: `dlv_${i.toString(16).padStart(24, "0")}`,
        accountId: made.account.id,
        kind: i % 3 === 0 ? "payment" : "event",
        status: i % 10 === 9 ? "pending" : "succeeded",
        at: i % 2 === 0 ? now - 30 * DAY + i : now - DAY + i,
      });
    for (let start = 0; start < ROWS; start += 500) await insertDeliveryRows(ctx.db, Array.from({ length: 500 }, (_, i) => row(start + i)));
  });

  afterAll(async () => {
    await ctx?.db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it.skipIf(onPostgres)("a chunk's rows come from the retention index in order, with no sort", async () => {
    const text = await sqlitePlan(ctx.db, oldestPrunable(ctx.db, now - 7 * DAY, 1000).compile());
    expect(text).toContain("deliveries_prunable");
    expect(text).not.toContain("TEMP B-TREE");
    expect(text).not.toContain("deliveries_due");
  });

  it.skipIf(onPostgres)("a chunk's rows are deleted by key", async () => {
    const ids = Array.from({ length: 1000 }, (_, i) => `dlv_${(2 * i).toString(16).padStart(24, "0")}`);
    const del = deletePrunable(ctx.db, ids, now - 7 * DAY).compile();
    // Its WHERE explained as a select's, the same plan (sqlitePlan explains no DELETE).
    const where = del.sql.replace(/^delete from "deliveries" /, 'select "id" from "deliveries" ').replace(/ returning "id"$/, "");
    expect(where).toStartWith('select "id" from "deliveries" where "id" in (');
    const text = await sqlitePlan(ctx.db, { ...del, sql: where });
    expect(text).toContain("USING INDEX sqlite_autoindex_deliveries_1 (id=?)");
    expect(text).not.toContain("deliveries_due");
  });

  it("prunes exactly the old settled rows that are not a payment order's", async () => {
    const kept = (await ctx.db.selectFrom("deliveries").select(["id", "kind", "status", "completed_at"]).execute()).filter(
      (d) => !(d.kind !== "payment" && d.status === "succeeded" && Number(d.completed_at) < now - 7 * DAY),
    );
    const pruned = await pruneDeliveries(ctx.db, now, 7);
    expect(pruned.deliveries).toBe(ROWS - kept.length);
    const left = await ctx.db.selectFrom("deliveries").select("id").orderBy("id").execute();
    expect(left.map((d) => d.id)).toEqual(kept.map((d) => d.id).sort());
  });
});
