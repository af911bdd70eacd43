import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { createAccount } from "../../src/accounts/accounts.ts";
import { type Context, openContext } from "../../src/daemon.ts";
import { orderedClaimPlan } from "../../src/db/primitives.ts";
import { deliveryStatements } from "../../src/delivery/sql/dialects.ts";
import { onPostgres, testConfig } from "../support/harness.ts";
import { postgresOnly } from "../support/postgres-only.ts";
import { insertDeliveryRows } from "../support/delivery-rows.ts";

// Found by `bun run bench:deliver --database postgres` (BENCH_PG_NO_ANALYZE=1): statistics taken
// while the outbox was empty make PostgreSQL sort every pending row for each claim once a burst
// has filled it (901 deliveries/s instead of ~5,000) until autovacuum analyzes the table again.
// The claim's plan must read the due index in order whatever the statistics say.

const ROWS = 20_000;
let dir: string;
let ctx: Context;

describe.skipIf(!onPostgres)(postgresOnly("the claim's plan on PostgreSQL with statistics of an empty outbox"), () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "chainwatch-claim-plan-"));
    ctx = await openContext(testConfig(dir), { env: {} });
    const made = await createAccount(ctx, { name: "burst", credits: 1_000_000 });
    if (!made.ok) throw new Error(made.error);
    // This test's own database: autovacuum must not refresh the statistics between the two plans.
    await sql`alter table deliveries set (autovacuum_enabled = false)`.execute(ctx.db);
    await sql`analyze deliveries`.execute(ctx.db);
    const now = Date.now();
    for (let start = 0; start < ROWS; start += 1000) {
      const rows = Array.from({ length: 1000 }, (_, i) => ({
        id: `dlv_${(start + i).toString(16).padStart(24, "0")}`,
        account_id: made.account.id,
        kind: "event",
        event_type: "payment",
        network: "eth",
        event_id: null,
        payment_id: null,
        sequence: null,
        body: "{}",
        status: "pending",
        hold_until_height: null,
        attempts: 0,
        next_attempt_at: now - ROWS + start + i,
        lease_until: null,
        last_status_code: null,
        last_error: null,
        credits_charged: 0,
        created_at: now,
        updated_at: now,
        completed_at: null,
      }));
      await insertDeliveryRows(ctx.db, rows);
    }
  });

  afterAll(async () => {
    await ctx?.db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  const plan = (replay: boolean) =>
    ctx.db.transaction().execute(async (trx) => {
      await orderedClaimPlan(trx);
      const claim = deliveryStatements(trx).selectDueDeliveries(Date.now(), 64, replay);
      const { rows } = await trx.executeQuery<{ "QUERY PLAN": string }>({ ...claim, sql: `explain ${claim.sql}` });
      return rows.map((r) => r["QUERY PLAN"]).join("\n");
    });

  // Since the due index became (status, replay, next_attempt_at), these statistics no longer
  // lead the planner to a sort by themselves (it reads the index for the equalities); the hint
  // stays for statistics that still could.
  it.each([
    ["live", false],
    ["replayed", true],
  ])("with the hint the due %s rows come from the index in order, with no sort, each row's body by key", async (_kind, replay) => {
    const text = await plan(replay);
    expect(text).not.toMatch(/\bSort\b/);
    expect(text).toContain("Index Scan using deliveries_due");
    expect(text).toContain("Index Scan using delivery_bodies_pkey on delivery_bodies b");
  });
});
