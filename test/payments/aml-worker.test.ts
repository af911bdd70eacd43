import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAccount } from "../../src/accounts/accounts.ts";
import { type Context, openContext } from "../../src/daemon.ts";
import type { Payment } from "../../src/db/schema.ts";
import { manualClock } from "../support/clock.ts";
import { rfc3339 } from "../../src/lib/time.ts";
import { claimDueAmlJobs, completeAmlJob } from "../../src/payments/aml/worker.ts";
import type { ScreeningResult, StoredAml } from "../../src/payments/aml/screening.ts";
import { testConfig } from "../support/harness.ts";
import { deliveriesWithBodies } from "../../src/delivery/outbox.ts";

// The worker's two database steps, over a real SQLite file: leasing jobs and applying a verdict.

const clock = manualClock();
let dir: string;
let ctx: Context;
let accountId: string;
let n = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chainwatch-amlw-"));
  ctx = await openContext(testConfig(dir), { clock, env: {} });
  const acct = await createAccount(ctx, { name: "merchant" });
  if (!acct.ok) throw new Error(acct.error);
  accountId = acct.account.id;
});
afterAll(async () => {
  await ctx.db.destroy();
  rmSync(dir, { recursive: true, force: true });
});

const SEVERE: ScreeningResult = { score: 99, risk_level: "severe", hacking_event: "x", detail_list: [], risk_detail: [], address_label: "" };

async function orderWithJob(over: Partial<Payment> = {}): Promise<Payment> {
  const now = clock.now();
  const order: Payment = {
    id: `pay_${(++n).toString().padStart(24, "0")}`,
    account_id: accountId,
    order_id: `o-${n}`,
    network: "eth",
    address: `0x${n.toString(16).padStart(40, "c")}`,
    asset: null,
    decimals: 18,
    amount_raw: "1",
    received_raw: "1",
    confirmed_raw: "1",
    status: "aml_check",
    tx_hash: "0xabc",
    expires_at: now + 3_600_000,
    aml: null,
    created_at: now,
    updated_at: now,
    wallet_id: null,
    derivation_index: null,
    checkout_token: `token-${n}`,
    checkout_key: `key-${n}`,
    description: null,
    redirect_url: null,
    ...over,
  };
  await ctx.db.insertInto("payments").values(order).execute();
  await ctx.db
    .insertInto("aml_jobs")
    .values({ payment_id: order.id, network: "eth", address: "0xsender", tx_hash: "0xabc", attempts: 0, next_attempt_at: now, lease_until: null, last_error: null, created_at: now })
    .execute();
  return order;
}

const opts = () => ({ nowMs: clock.now(), failLevels: ["high", "severe"] as const });

describe("claiming AML jobs", () => {
  test("leases a due job once until its lease runs out", async () => {
    const order = await orderWithJob();
    const first = await claimDueAmlJobs(ctx.db, clock.now(), 10_000, 100);
    expect(first.map((j) => [j.payment_id, j.attempts])).toContainEqual([order.id, 1]);
    expect((await claimDueAmlJobs(ctx.db, clock.now(), 10_000, 100)).map((j) => j.payment_id)).not.toContain(order.id);
    clock.advance(10_000);
    const again = await claimDueAmlJobs(ctx.db, clock.now(), 10_000, 100);
    expect(again.map((j) => [j.payment_id, j.attempts])).toContainEqual([order.id, 2]);
    await ctx.db.deleteFrom("aml_jobs").execute();
  });
});

describe("applying a verdict", () => {
  test("stores the result with checked_at, fails a severe sender and queues one webhook", async () => {
    const order = await orderWithJob();
    expect(await completeAmlJob(ctx.db, { payment_id: order.id }, SEVERE, opts())).toBe(true);
    const row = await ctx.db.selectFrom("payments").selectAll().where("id", "=", order.id).executeTakeFirstOrThrow();
    expect(row.status).toBe("failed");
    expect(JSON.parse(row.aml as string)).toEqual({ ...SEVERE, checked_at: rfc3339(clock.now()) });
    const queued = await deliveriesWithBodies(ctx.db).where("payment_id", "=", order.id).execute();
    expect(queued.map((d) => [d.sequence, JSON.parse(d.body).event])).toEqual([[1, "failed"]]);
    expect(await ctx.db.selectFrom("aml_jobs").selectAll().where("payment_id", "=", order.id).execute()).toEqual([]);
  });

  test("reuses a result already stored on the order instead of the new one", async () => {
    const stored: StoredAml = { score: 1, risk_level: "low", hacking_event: "", detail_list: [], risk_detail: [], address_label: "", checked_at: "2026-01-01T00:00:00.000+00:00" };
    const order = await orderWithJob({ aml: JSON.stringify(stored) });
    expect(await completeAmlJob(ctx.db, { payment_id: order.id }, SEVERE, opts())).toBe(true);
    const row = await ctx.db.selectFrom("payments").selectAll().where("id", "=", order.id).executeTakeFirstOrThrow();
    expect([row.status, JSON.parse(row.aml as string)]).toEqual(["paid", stored]);
    const [d] = await deliveriesWithBodies(ctx.db).where("payment_id", "=", order.id).execute();
    expect(JSON.parse(d.body).aml).toEqual(stored);
  });

  test("drops the job of an order no longer waiting on screening, changing nothing", async () => {
    const order = await orderWithJob({ status: "expired" });
    expect(await completeAmlJob(ctx.db, { payment_id: order.id }, SEVERE, opts())).toBe(false);
    const row = await ctx.db.selectFrom("payments").selectAll().where("id", "=", order.id).executeTakeFirstOrThrow();
    expect([row.status, row.aml]).toEqual(["expired", null]);
    expect(await ctx.db.selectFrom("deliveries").select("id").where("payment_id", "=", order.id).execute()).toEqual([]);
    expect(await ctx.db.selectFrom("aml_jobs").selectAll().where("payment_id", "=", order.id).execute()).toEqual([]);
  });
});
