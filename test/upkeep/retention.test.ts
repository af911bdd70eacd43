import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAccount } from "../../src/accounts/accounts.ts";
import { pruneUsage } from "../../src/billing/retention.ts";
import { pruneExpiredSignIns } from "../../src/cabinet/sessions.ts";
import { type Context, openContext } from "../../src/daemon.ts";
import type { Delivery } from "../../src/db/schema.ts";
import { databaseSize } from "../../src/db/storage.ts";
import { pruneDeliveries } from "../../src/delivery/retention.ts";
import { pruneFollowerBookkeeping } from "../../src/follow/core/retention.ts";
import { blocksKept, pruneBlocks } from "../../src/ingest/retention.ts";
import { createMetrics } from "../../src/lib/metrics.ts";
import { utcDay } from "../../src/lib/time.ts";
import { refreshGauges } from "../../src/upkeep/gauges.ts";
import { runRetention } from "../../src/upkeep/retention.ts";
import { manualClock } from "../support/clock.ts";
import { onPostgres, testConfig } from "../support/harness.ts";
import { pruneNotices } from "../../src/notices/retention.ts";
import { insertDeliveryRows } from "../support/delivery-rows.ts";

const DAY = 86_400_000;

describe("retention: every table that grows has a bound", () => {
  const clock = manualClock();
  let dir: string;
  let ctx: Context;
  let accountId: string;
  let seq = 0;

  const deliveryRow = (id: string, row: Partial<Omit<Delivery, "replay">>): Omit<Delivery, "replay"> => ({
    id,
    account_id: accountId,
    endpoint_id: null,
    kind: "event",
    event_type: "payment",
    network: "eth",
    event_id: null,
    payment_id: null,
    sequence: null,
    body: "{}",
    status: "succeeded",
    attempts: 1,
    next_attempt_at: 0,
    lease_until: null,
    last_status_code: 200,
    last_error: null,
    credits_charged: 0,
    created_at: clock.now() - 40 * DAY,
    updated_at: clock.now() - 40 * DAY,
    completed_at: null,
    hold_until_height: null,
    ...row,
  });
  const delivery = (id: string, row: Partial<Omit<Delivery, "replay">>) => insertDeliveryRows(ctx.db, [deliveryRow(id, row)]);
  const attempt = (deliveryId: string) =>
    ctx.db
      .insertInto("delivery_attempts")
      .values({ delivery_id: deliveryId, attempt: 1, url: "http://r.example/", started_at: 0, duration_ms: 1, status_code: 200, error: null, response_snippet: null })
      .execute();
  const ids = async (table: "deliveries") => (await ctx.db.selectFrom(table).select("id").orderBy("id").execute()).map((r) => r.id);
  /** The deliveries whose bodies are stored: every delivery kept, no body left behind by one deleted. */
  const withBodies = async () => (await ctx.db.selectFrom("delivery_bodies").select("delivery_id").orderBy("delivery_id").execute()).map((r) => r.delivery_id);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "chainwatch-upkeep-"));
    ctx = await openContext(testConfig(dir), { clock, env: {} });
    const created = await createAccount(ctx, { name: "keeper" });
    if (!created.ok) throw new Error(created.error);
    accountId = created.account.id;
  });
  afterAll(async () => {
    await ctx.db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it("deletes settled deliveries past delivery.retention_days with their attempts; never a pending, held or paused one, nor a payment order's", async () => {
    const old = clock.now() - 31 * DAY;
    await delivery("dlv_a_succeeded_old", { status: "succeeded", completed_at: old });
    await delivery("dlv_b_failed_old", { status: "failed", completed_at: old });
    await delivery("dlv_c_succeeded_recent", { status: "succeeded", completed_at: clock.now() - 29 * DAY });
    await delivery("dlv_d_pending_old", { status: "pending", completed_at: null });
    await delivery("dlv_e_held_old", { status: "held", completed_at: null, hold_until_height: 10 });
    await delivery("dlv_f_paused_old", { status: "paused", completed_at: null });
    await delivery("dlv_g_payment_old", { status: "succeeded", kind: "payment", event_type: "payment_order", completed_at: old });
    for (const id of ["dlv_a_succeeded_old", "dlv_b_failed_old", "dlv_c_succeeded_recent", "dlv_d_pending_old"]) await attempt(id);
    await ctx.db
      .insertInto("notices")
      .values([
        { id: "ntc_old", account_id: accountId, type: "delivery_failed", message: "m", delivery_id: "dlv_b_failed_old", created_at: old },
        { id: "ntc_new", account_id: accountId, type: "delivery_failed", message: "m", delivery_id: null, created_at: clock.now() },
      ])
      .execute();

    expect(await pruneDeliveries(ctx.db, clock.now(), 30)).toEqual({ deliveries: 2, attempts: 2 });
    expect(await pruneNotices(ctx.db, clock.now(), 30)).toBe(1);
    expect(await ids("deliveries")).toEqual(["dlv_c_succeeded_recent", "dlv_d_pending_old", "dlv_e_held_old", "dlv_f_paused_old", "dlv_g_payment_old"]);
    expect(await withBodies()).toEqual(await ids("deliveries"));
    const attempts = await ctx.db.selectFrom("delivery_attempts").select("delivery_id").orderBy("delivery_id").execute();
    expect(attempts.map((a) => a.delivery_id)).toEqual(["dlv_c_succeeded_recent", "dlv_d_pending_old"]);
    expect((await ctx.db.selectFrom("notices").select("id").execute()).map((n) => n.id)).toEqual(["ntc_new"]);
    expect(await pruneDeliveries(ctx.db, clock.now(), 30)).toEqual({ deliveries: 0, attempts: 0 });
    expect(await pruneNotices(ctx.db, clock.now(), 30)).toBe(0);
  });

  it("deletes more than one chunk of deliveries in one run", async () => {
    await ctx.db.deleteFrom("deliveries").execute();
    await ctx.db.deleteFrom("delivery_bodies").execute();
    const rows = Array.from({ length: 2500 }, (_, i) => `dlv_bulk_${String(i).padStart(5, "0")}`);
    for (const id of rows) await delivery(id, { status: "succeeded", completed_at: clock.now() - 31 * DAY - 1 });
    expect((await pruneDeliveries(ctx.db, clock.now(), 30)).deliveries).toBe(2500);
    expect(await ids("deliveries")).toEqual([]);
    expect(await withBodies()).toEqual([]);
  });

  it("keeps max_reorg_depth + the largest confirmation threshold of blocks below the tip, plus those an event or an open order names", async () => {
    const eth = ctx.config.networks.eth;
    const keep = blocksKept({ network: "eth", maxReorgDepth: eth.max_reorg_depth, confirmations: eth.confirmations });
    const tip = keep + 500;
    const rows = Array.from({ length: tip }, (_, i) => ({
      network: "eth",
      hash: `0xb${i + 1}`,
      height: i + 1,
      parent_hash: i === 0 ? null : `0xb${i}`,
      timestamp: null,
      tx_count: 0,
      created_at: clock.now(),
    }));
    for (let i = 0; i < rows.length; i += 500) await ctx.db.insertInto("blocks").values(rows.slice(i, i + 500)).execute();
    // An orphaned block below the floor, and another network's chain is left alone.
    await ctx.db
      .insertInto("blocks")
      .values([
        { network: "eth", hash: "0xorphan", height: 7, parent_hash: "0xb6", timestamp: null, tx_count: 0, created_at: clock.now(), status: "orphaned" },
        { network: "other", hash: "0xo1", height: 1, parent_hash: null, timestamp: null, tx_count: 0, created_at: clock.now(), status: "canonical" },
      ])
      .execute();
    // Block 100 has a stored event; block 200 a transfer of an open order; block 300 one of a paid order.
    await ctx.db
      .insertInto("events")
      .values({
        id: "evt_1",
        account_id: accountId,
        type: "payment",
        network: "eth",
        watch_id: null,
        dedupe_key: "k1",
        body: "{}",
        created_at: clock.now(),
        block_height: 100,
        block_hash: "0xb100",
        ...(onPostgres ? { seq: ++seq } : {}),
      })
      .execute();
    for (const [id, status, height] of [
      ["pay_open", "seen", 200],
      ["pay_done", "paid", 300],
    ] as const) {
      await ctx.db
        .insertInto("payments")
        .values({
          id,
          account_id: accountId,
          order_id: id,
          network: "eth",
          address: `0x${id}`,
          asset: null,
          decimals: 18,
          amount_raw: "1",
          received_raw: "0",
          confirmed_raw: "0",
          status,
          tx_hash: null,
          expires_at: clock.now() + DAY,
          aml: null,
          created_at: clock.now(),
          updated_at: clock.now(),
          checkout_token: `token-${id}`,
          checkout_key: `key-${id}`,
          description: null,
          redirect_url: null,
        })
        .execute();
      await ctx.db
        .insertInto("payment_transfers")
        .values({
          payment_id: id,
          tx_hash: `0xt${height}`,
          movement: 0,
          block_hash: `0xb${height}`,
          block_height: height,
          sender: null,
          amount_raw: "1",
          confirmed: 0,
          late: 0,
          created_at: clock.now(),
        })
        .execute();
    }

    const floor = tip - keep;
    // Below the floor: every block but 100 and 200 goes (the orphaned one too).
    expect(await pruneBlocks(ctx.db, [{ network: "eth", maxReorgDepth: eth.max_reorg_depth, confirmations: eth.confirmations }])).toBe(floor - 1 - 2 + 1);
    const heights = (await ctx.db.selectFrom("blocks").select("height").where("network", "=", "eth").orderBy("height").execute()).map((r) => Number(r.height));
    expect(heights.slice(0, 3)).toEqual([100, 200, floor]);
    expect(heights.length).toBe(2 + keep + 1);
    expect(heights.at(-1)).toBe(tip);
    expect(await ctx.db.selectFrom("blocks").select("hash").where("network", "=", "other").execute()).toEqual([{ hash: "0xo1" }]);
    // Run again: nothing more to free, and the walk stops at once.
    expect(await pruneBlocks(ctx.db, [{ network: "eth", maxReorgDepth: eth.max_reorg_depth, confirmations: eth.confirmations }])).toBe(0);
  });

  it("keeps usage rows for the longest usage report (90 days) and deletes older ones", async () => {
    const day = (back: number) => utcDay(clock.now() - back * DAY);
    await ctx.db
      .insertInto("usage_daily")
      .values([0, 89, 90, 400].map((back) => ({ account_id: accountId, day: day(back), credits: 1, deliveries: 1, events: 1 })))
      .execute();
    expect(await pruneUsage(ctx.db, clock.now())).toBe(2);
    const days = (await ctx.db.selectFrom("usage_daily").select("day").orderBy("day").execute()).map((r) => r.day);
    expect(days).toEqual([day(89), day(0)]);
  });

  it("deletes expired cabinet sessions and sign-in links, keeps live ones", async () => {
    const now = clock.now();
    await ctx.db
      .insertInto("cabinet_sessions")
      .values([
        { token_hash: "s-expired", account_id: accountId, expires_at: now - 1, created_at: now - 8 * DAY },
        { token_hash: "s-live", account_id: accountId, expires_at: now + DAY, created_at: now },
      ])
      .execute();
    await ctx.db
      .insertInto("cabinet_links")
      .values([
        { token_hash: "l-expired", account_id: accountId, expires_at: now - 1, used_at: null, created_at: now - DAY },
        { token_hash: "l-used-expired", account_id: accountId, expires_at: now - 1, used_at: now - 2, created_at: now - DAY },
        { token_hash: "l-live", account_id: accountId, expires_at: now + 60_000, used_at: null, created_at: now },
      ])
      .execute();
    expect(await pruneExpiredSignIns(ctx.db, now)).toEqual({ sessions: 1, links: 2 });
    expect(await ctx.db.selectFrom("cabinet_sessions").select("token_hash").execute()).toEqual([{ token_hash: "s-live" }]);
    expect(await ctx.db.selectFrom("cabinet_links").select("token_hash").execute()).toEqual([{ token_hash: "l-live" }]);
  });

  it("forgets the follower state of networks no longer configured and token decimals learned over 90 days ago", async () => {
    const now = clock.now();
    const state = (network: string) => ({ network, upstream: null, node_height: 1, state: "following", last_error: null, blocks_per_second: 0, resume_requested: 0, updated_at: now });
    await ctx.db.insertInto("follower_state").values([state("eth"), state("gone")]).execute();
    await ctx.db
      .insertInto("token_decimals")
      .values([
        { network: "eth", address: "0xfresh", decimals: 6, created_at: now - DAY },
        { network: "eth", address: "0xstale", decimals: 6, created_at: now - 91 * DAY },
        { network: "gone", address: "0xfresh", decimals: 6, created_at: now },
      ])
      .execute();
    expect(await pruneFollowerBookkeeping(ctx.db, now, Object.keys(ctx.config.networks))).toEqual({ followerStates: 1, tokenDecimals: 2 });
    expect(await ctx.db.selectFrom("follower_state").select("network").execute()).toEqual([{ network: "eth" }]);
    expect(await ctx.db.selectFrom("token_decimals").select(["network", "address"]).execute()).toEqual([{ network: "eth", address: "0xfresh" }]);
  });

  it("one retention run prunes every table and, on SQLite, gives the space back to the file system", async () => {
    const body = "x".repeat(2000);
    const rows = Array.from({ length: 3000 }, (_, i) => deliveryRow(`dlv_big_${String(i).padStart(5, "0")}`, { body, status: "succeeded", completed_at: clock.now() - 40 * DAY }));
    // A few statements of 200 rows rather than 3,000 of one: the same rows, written in a fraction of the time.
    for (let i = 0; i < rows.length; i += 200) await insertDeliveryRows(ctx.db, rows.slice(i, i + 200));
    const before = await databaseSize(ctx.db);
    const report = await runRetention(ctx);
    expect(report.deliveries).toBe(3000);
    const after = await databaseSize(ctx.db);
    if (onPostgres) {
      expect(report.reclaimed_bytes).toBe(0);
      return;
    }
    expect(report.reclaimed_bytes).toBeGreaterThan(3000 * 2000);
    expect(after.freeBytes).toBe(0);
    expect(after.bytes).toBeLessThan(before.bytes - 3000 * 2000);
  });

  it("the /metrics gauges show deliveries by state, the most overdue pending one and the database size", async () => {
    await ctx.db.deleteFrom("deliveries").execute();
    await delivery("dlv_p1", { status: "pending", next_attempt_at: clock.now() - 90_000 });
    await delivery("dlv_p2", { status: "pending", next_attempt_at: clock.now() + 60_000 });
    await delivery("dlv_h1", { status: "held", hold_until_height: 5 });
    await delivery("dlv_f1", { status: "failed", completed_at: clock.now() });
    const metrics = createMetrics();
    await refreshGauges({ db: ctx.db, clock, metrics });
    const text = metrics.render();
    expect(text).toContain('chainwatch_deliveries{state="pending"} 2\n');
    expect(text).toContain('chainwatch_deliveries{state="held"} 1\n');
    expect(text).toContain('chainwatch_deliveries{state="paused"} 0\n');
    expect(text).toContain('chainwatch_deliveries{state="failed"} 1\n');
    expect(text).toContain("chainwatch_delivery_oldest_due_seconds 90\n");
    const size = Number(/^chainwatch_database_bytes (\d+)$/m.exec(text)?.[1]);
    expect(size).toBeGreaterThan(0);
    expect(text.includes("chainwatch_database_wal_bytes")).toBe(!onPostgres);
  });
});
