import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAccount, findAccount } from "../../src/accounts/accounts.ts";
import { setPlan } from "../../src/accounts/plans.ts";
import { grantMonthlyCredits, monthlyGrantWorker, utcMonth } from "../../src/accounts/monthly-grants.ts";
import { parseConfig } from "../../src/config/load.ts";
import { type Context, openContext } from "../../src/daemon.ts";
import { enqueueDelivery } from "../../src/delivery/outbox.ts";
import { manualClock } from "../support/clock.ts";
import type { Logger } from "../../src/lib/log.ts";
import { defaultEndpointId } from "../support/endpoints.ts";

const NOV = Date.UTC(2026, 10, 21, 12, 0, 0);
const DEC = Date.UTC(2026, 11, 1, 0, 30, 0);
let dir: string;
let ctx: Context;
let config: ReturnType<typeof testConfig>;

function testConfig(d: string) {
  const cfg = parseConfig({ database: { url: `sqlite://${d}/db.sqlite` }, secrets: { master_key_file: `${d}/master.key` } }, "test");
  if (!cfg.ok) throw new Error(cfg.error);
  return cfg.config;
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "chainwatch-grants-"));
  config = testConfig(dir);
  ctx = await openContext(config, { clock: manualClock(NOV), env: {} });
  await setPlan(ctx.db, ctx.clock, { name: "gold", slots: 5, monthlyCredits: 1000 });
});
afterEach(async () => {
  await ctx.db.destroy();
  rmSync(dir, { recursive: true, force: true });
});

async function account(name: string, plan: string, credits = 0) {
  const r = await createAccount(ctx, { name, plan, credits });
  if (!r.ok) throw new Error(r.error);
  return r.account.id;
}

const balance = async (name: string) => (await findAccount(ctx.db, name))?.credits;

describe("monthly credit grants", () => {
  test("utcMonth is the UTC calendar month", () => {
    expect([utcMonth(NOV), utcMonth(DEC), utcMonth(Date.UTC(2026, 11, 31, 23, 59, 59))]).toEqual(["2026-11", "2026-12", "2026-12"]);
  });

  test("grants each account on a plan with monthly credits once, adding to its balance", async () => {
    await account("a", "gold", 5);
    await account("b", "free", 7);
    await account("c", "gold");
    expect(await grantMonthlyCredits(ctx.db, NOV)).toEqual({ month: "2026-11", accounts: 2, credits: 2000 });
    expect([await balance("a"), await balance("b"), await balance("c")]).toEqual([1005, 7, 1000]);
  });

  test("a second run in the same month grants nothing, even after the plan's amount changed", async () => {
    await account("a", "gold");
    await grantMonthlyCredits(ctx.db, NOV);
    await setPlan(ctx.db, ctx.clock, { name: "gold", slots: 5, monthlyCredits: 3000 });
    expect(await grantMonthlyCredits(ctx.db, NOV + 3_600_000)).toEqual({ month: "2026-11", accounts: 0, credits: 0 });
    expect(await balance("a")).toBe(1000);
    // The next month grants again, at the plan's amount then.
    expect(await grantMonthlyCredits(ctx.db, DEC)).toEqual({ month: "2026-12", accounts: 1, credits: 3000 });
    expect(await balance("a")).toBe(4000);
  });

  test("records each grant with its month, plan and amount", async () => {
    const id = await account("a", "gold");
    await grantMonthlyCredits(ctx.db, NOV);
    expect(await ctx.db.selectFrom("credit_grants").selectAll().execute()).toEqual([
      { account_id: id, month: "2026-11", plan: "gold", credits: 1000, granted_at: NOV },
    ]);
  });

  test("a restart or a second daemon (another connection) in the same month grants nothing more", async () => {
    await account("a", "gold");
    await grantMonthlyCredits(ctx.db, NOV);
    const other = await openContext(config, { env: {} });
    try {
      expect((await grantMonthlyCredits(other.db, NOV + 60_000)).accounts).toBe(0);
    } finally {
      await other.db.destroy();
    }
    expect(await balance("a")).toBe(1000);
  });

  test("two processes granting at the same moment over one database grant once", async () => {
    await account("a", "gold");
    // Each process opens the file itself, as two daemons would; bun:sqlite blocks its thread while
    // waiting for the writer lock, so the race needs two processes, not two connections in this one.
    const script = `
      import { openDatabase } from ${JSON.stringify(join(import.meta.dir, "../../src/db/database.ts"))};
      import { grantMonthlyCredits } from ${JSON.stringify(join(import.meta.dir, "../../src/accounts/monthly-grants.ts"))};
      const db = openDatabase(${JSON.stringify(`${dir}/db.sqlite`)});
      const r = await grantMonthlyCredits(db, ${NOV});
      await db.destroy();
      console.log(r.accounts);`;
    const run = () => Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "inherit" });
    const procs = [run(), run(), run()];
    const outputs = await Promise.all(procs.map(async (p) => (await new Response(p.stdout).text()).trim()));
    expect(await Promise.all(procs.map((p) => p.exited))).toEqual([0, 0, 0]);
    expect(outputs.sort()).toEqual(["0", "0", "1"]);
    expect(await balance("a")).toBe(1000);
  });

  test("deliveries paused for lack of credits resume when the grant arrives", async () => {
    const id = await account("a", "gold");
    const deliveryId = await enqueueDelivery(ctx.db, { accountId: id, endpointId: await defaultEndpointId(ctx.db, id), kind: "event", eventType: "payment", network: "eth", body: "{}", nowMs: NOV - 1000 });
    await ctx.db.updateTable("deliveries").set({ status: "paused" }).where("id", "=", deliveryId).execute();
    await grantMonthlyCredits(ctx.db, NOV);
    const row = await ctx.db.selectFrom("deliveries").select(["status", "next_attempt_at"]).where("id", "=", deliveryId).executeTakeFirstOrThrow();
    expect(row).toEqual({ status: "pending", next_attempt_at: NOV });
  });

  test("the worker grants at start, logs it once, wakes delivery, and grants nothing more on its next run", async () => {
    await account("a", "gold");
    const lines: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
    const at = (level: string) => (msg: string, fields?: Record<string, unknown>) => void lines.push({ level, msg, fields });
    const log: Logger = { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
    let wakes = 0;
    const worker = monthlyGrantWorker({ db: ctx.db, clock: ctx.clock, log, wakeDelivery: () => wakes++ });
    worker.start();
    await worker.idle();
    worker.wake();
    await worker.idle();
    await worker.stop();
    expect(await balance("a")).toBe(1000);
    expect(lines).toEqual([{ level: "info", msg: "monthly credits granted", fields: { month: "2026-11", accounts: 1, credits: 1000 } }]);
    expect(wakes).toBe(1);
  });
});
