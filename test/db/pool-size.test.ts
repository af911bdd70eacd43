import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { openDatabase } from "../../src/db/database.ts";
import { openContext } from "../../src/context.ts";
import { onPostgres, startTestDaemon, testConfig } from "../support/harness.ts";
import { postgresOnly } from "../support/postgres-only.ts";
import { startWebhookSink } from "../support/webhook-sink.ts";
import { block, ingest } from "../delivery/recovery-support.ts";

// docs/config.md, `database.pool_size`: on PostgreSQL a daemon holds at most that many pooled
// connections; statements beyond them wait for one instead of opening more.

describe.skipIf(!onPostgres)(postgresOnly("database.pool_size on PostgreSQL"), () => {
  // Made in beforeAll: a skipped describe still runs its body, but never its afterAll.
  let dir = "";
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "chainwatch-pool-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("twelve statements at once on a pool of 3 run on 3 connections, the rest wait their turn", async () => {
    const ctx = await openContext(testConfig(dir, { database: { pool_size: 3 } }));
    // Another process's view of the database: the backends running the statements below.
    const observer = openDatabase(ctx.config.database.url);
    try {
      const tag = `pool-size-${process.pid}`;
      const sleeping = async () =>
        Number(
          (
            await sql<{ n: number }>`select count(*) as n from pg_stat_activity
              where datname = current_database() and state = 'active' and query like ${`%${tag}%`} and pid <> pg_backend_pid()`.execute(observer)
          ).rows[0].n,
        );
      let settled = false;
      const statements = Promise.all(
        Array.from({ length: 12 }, () => sql.raw<{ slept: string }>(`select pg_sleep(0.15)::text as slept /* ${tag} */`).execute(ctx.db)),
      ).finally(() => {
        settled = true;
      });
      const seen: number[] = [];
      while (!settled) {
        seen.push(await sleeping());
        await Bun.sleep(20);
      }
      expect((await statements).map((r) => r.rows)).toEqual(Array.from({ length: 12 }, () => [{ slept: "" }]));
      expect(Math.max(...seen)).toBe(3);
    } finally {
      await observer.destroy();
      await ctx.db.destroy();
    }
  });

  test("a daemon on a pool of 1 delivers to a rate-limited webhook: its claim needs no second pooled connection", async () => {
    const td = await startTestDaemon({ config: { database: { pool_size: 1 } } });
    const sink = startWebhookSink();
    try {
      const c = await td.client({ credits: 1_000_000, slots: 5 });
      const payees = Array.from({ length: 5 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, "0")}`);
      for (const address of payees) expect((await c.request("POST", "/v1/address-watch/addresses", { network_slug: "eth", address })).status).toBe(201);
      const put = await c.request("PUT", "/v1/address-watch/webhook", { url: sink.url, enabled: true, events: { block: false }, delivery: { max_rps: 50 } });
      expect(put.status).toBe(200);
      await ingest(td, block(1, payees));
      // Each claim leases its slots of the second on the budget's own connection; asking the pool
      // it holds for a second one, it would wait for itself until the pool's timeout, every time,
      // and nothing would go out.
      const received = await sink.waitFor(payees.length);
      expect(new Set(received.map((r) => (JSON.parse(r.body) as { address: string }).address.toLowerCase()))).toEqual(new Set(payees));
    } finally {
      await sink.stop();
      await td.stop();
    }
  });
});
