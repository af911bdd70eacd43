import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { addCredits, createAccount } from "../../src/accounts/accounts.ts";
import { setPlan } from "../../src/accounts/plans.ts";
import { parseConfig } from "../../src/config/load.ts";
import { type Context, openContext } from "../../src/daemon.ts";
import { manualClock } from "../support/clock.ts";
import { silentLogger } from "../../src/lib/log.ts";
import { createCreditMeter } from "../../src/rpc/credit-meter.ts";

const clock = manualClock(Date.UTC(2026, 10, 21, 23, 59, 59, 500));
let dir: string;
let ctx: Context;
let accountId: string;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "chainwatch-meter-"));
  const cfg = parseConfig({ database: { url: `sqlite://${dir}/db.sqlite` }, secrets: { master_key_file: `${dir}/master.key` } }, "test");
  if (!cfg.ok) throw new Error(cfg.error);
  ctx = await openContext(cfg.config, { clock, env: {} });
  await setPlan(ctx.db, clock, { name: "rpc", slots: 0, rpcRps: 7 });
  const a = await createAccount(ctx, { name: "meter", plan: "rpc", credits: 10 });
  if (!a.ok) throw new Error(a.error);
  accountId = a.account.id;
});
afterEach(async () => {
  await ctx.db.destroy();
  rmSync(dir, { recursive: true, force: true });
});

const stored = async () => {
  const credits = Number((await ctx.db.selectFrom("accounts").select("credits").where("id", "=", accountId).executeTakeFirstOrThrow()).credits);
  const usage = await ctx.db.selectFrom("usage_daily").select(["day", "credits", "rpc_calls"]).where("account_id", "=", accountId).orderBy("day").execute();
  return { credits, usage };
};

describe("rpc credit meter", () => {
  test("reserves against balance less held and unbilled credits, writing nothing until the flush", async () => {
    const meter = createCreditMeter({ db: ctx.db, clock, log: silentLogger, flushIntervalSeconds: 1 });
    const a = await meter.account(accountId);
    expect(a.rpcRps).toBe(7);
    expect(meter.reserve(a, 6)).toBe(true);
    expect(meter.reserve(a, 5)).toBe(false); // 6 held of 10
    meter.settle(a, 6, 6, 1);
    expect(meter.reserve(a, 4)).toBe(true);
    expect(meter.reserve(a, 1)).toBe(false);
    meter.settle(a, 4, 0, 1); // a node error: released, counted, not charged
    expect(await stored()).toEqual({ credits: 10, usage: [] });
    await meter.flush();
    expect(await stored()).toEqual({ credits: 4, usage: [{ day: "2026-11-21", credits: 6, rpc_calls: 2 }] });
    expect(meter.reserve(a, 4)).toBe(true);
    expect(meter.reserve(a, 1)).toBe(false);
  });

  test("charges land on the UTC day the calls settled, and a second flush writes nothing again", async () => {
    const meter = createCreditMeter({ db: ctx.db, clock, log: silentLogger, flushIntervalSeconds: 1 });
    const a = await meter.account(accountId);
    meter.reserve(a, 1);
    meter.settle(a, 1, 1, 1);
    clock.advance(1000); // past midnight
    meter.reserve(a, 2);
    meter.settle(a, 2, 2, 1);
    await meter.flush();
    await meter.flush();
    expect(await stored()).toEqual({
      credits: 7,
      usage: [
        { day: "2026-11-21", credits: 1, rpc_calls: 1 },
        { day: "2026-11-22", credits: 2, rpc_calls: 1 },
      ],
    });
  });

  test("credits added by another writer are seen once the view is a second old", async () => {
    const meter = createCreditMeter({ db: ctx.db, clock, log: silentLogger, flushIntervalSeconds: 1 });
    const a = await meter.account(accountId);
    meter.reserve(a, 10);
    meter.settle(a, 10, 10, 1);
    await meter.flush();
    expect(meter.reserve(a, 1)).toBe(false);
    await addCredits(ctx.db, clock, accountId, 5);
    await meter.account(accountId);
    expect(meter.reserve(a, 1)).toBe(false); // still the fresh view
    clock.advance(1000);
    await meter.account(accountId);
    await a.refreshing;
    expect(meter.reserve(a, 5)).toBe(true);
    expect(meter.reserve(a, 1)).toBe(false);
  });

  test("the worker's stop flushes what is pending", async () => {
    const meter = createCreditMeter({ db: ctx.db, clock, log: silentLogger, flushIntervalSeconds: 60 });
    const worker = meter.worker();
    worker.start();
    const a = await meter.account(accountId);
    meter.reserve(a, 3);
    meter.settle(a, 3, 3, 3);
    await worker.stop();
    expect((await stored()).credits).toBe(7);
  });
});
