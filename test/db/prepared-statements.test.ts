import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { type Context, openContext } from "../../src/daemon.ts";
import { deliveryStatements } from "../../src/delivery/sql/dialects.ts";
import { onPostgres, testConfig } from "../support/harness.ts";

// On PostgreSQL the hand-written statements are named prepared statements on each connection
// (src/db/dialect/postgres/prepared.ts). One that reads `d.*` is refused by the server once the
// table gains a column (a newer daemon migrated the database): the connection that holds it is
// dropped, and the statement works again on the next one instead of failing for good.

describe.skipIf(!onPostgres)("prepared statements on PostgreSQL", () => {
  let dir: string;
  let ctx: Context;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "chainwatch-prepared-"));
    ctx = await openContext(testConfig(dir), { env: {} });
  });

  afterAll(async () => {
    await ctx.db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The claim's select, on a connection of the pool; its rows or the error it met. */
  const selectDue = () =>
    ctx.db.executeQuery(deliveryStatements(ctx.db).selectDueDeliveries(Date.now(), 10, false)).then(
      (r) => ({ rows: r.rows.length, error: null as string | null }),
      (e: Error) => ({ rows: -1, error: e.message }),
    );

  it("answer again after a migration changed the columns they read, at worst after one refusal per connection", async () => {
    // Prepared on every connection the pool hands out (it opens them one at a time here).
    for (let i = 0; i < 5; i++) expect(await selectDue()).toEqual({ rows: 0, error: null });
    await sql`alter table deliveries add column prepared_test_column integer`.execute(ctx.db);
    const outcomes = [];
    for (let i = 0; i < 12; i++) outcomes.push(await selectDue());
    // Whatever was refused said why; from some attempt on every one answers.
    for (const o of outcomes) if (o.error !== null) expect(o.error).toContain("cached plan must not change result type");
    expect(outcomes.at(-1)).toEqual({ rows: 0, error: null });
    expect(outcomes.filter((o) => o.error !== null).length).toBeLessThanOrEqual(10);
    await sql`alter table deliveries drop column prepared_test_column`.execute(ctx.db);
  });
});
