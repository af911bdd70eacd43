import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { addCredits, createAccount } from "../../src/accounts/accounts.ts";
import { setPlan } from "../../src/accounts/plans.ts";
import type { Context } from "../../src/daemon.ts";
import { openDatabase } from "../../src/db/database.ts";
import { manualClock } from "../support/clock.ts";
import { silentLogger } from "../../src/lib/log.ts";
import { type AccountMeter, type CreditMeter, type CreditMeterDeps, createCreditMeter } from "../../src/rpc/credit-meter.ts";
import { openScratchContext, type ScratchContext } from "../support/scratch-context.ts";
import { freePort } from "../support/free-port.ts";

// The meter over a real database (SQLite, or PostgreSQL in the PostgreSQL pass). Two meters on one
// database stand for two daemons: each sets credits aside under its own name.
const START = Date.UTC(2026, 10, 21, 23, 59, 59, 500);
const clock = manualClock(START);
let scratch: ScratchContext;
let ctx: Context;
let accountId: string;

beforeEach(async () => {
  clock.set(START);
  scratch = await openScratchContext("meter", clock);
  ctx = scratch.ctx;
  await setPlan(ctx.db, clock, { name: "rpc", slots: 0, rpcRps: 7 });
  const a = await createAccount(ctx, { name: "meter", plan: "rpc", credits: 10 });
  if (!a.ok) throw new Error(a.error);
  accountId = a.account.id;
});
afterEach(async () => {
  await scratch.close();
});

const meterOf = (holder: string, more: Partial<CreditMeterDeps> = {}) =>
  createCreditMeter({ db: ctx.db, clock, log: silentLogger, flushIntervalSeconds: 1, slice: 4, holder, ...more });

/** The meter's record of an account these tests expect it to read. */
async function opened(meter: CreditMeter, accountId: string): Promise<AccountMeter> {
  const a = await meter.account(accountId);
  if (!a.ok) throw new Error(`account ${accountId}: ${a.code}`);
  return a;
}

const stored = async () => {
  const credits = Number((await ctx.db.selectFrom("accounts").select("credits").where("id", "=", accountId).executeTakeFirstOrThrow()).credits);
  const usage = await ctx.db.selectFrom("usage_daily").select(["day", "credits", "rpc_calls"]).where("account_id", "=", accountId).orderBy("day").execute();
  return { credits, usage };
};
const leases = async () =>
  (await ctx.db.selectFrom("credit_leases").select(["holder", "credits"]).where("account_id", "=", accountId).orderBy("holder").execute()).map((r) => ({
    holder: r.holder,
    credits: Number(r.credits),
  }));

describe("rpc credit meter", () => {
  test("sets a slice aside when what it holds runs short, serves calls from it, and writes charges only at the flush", async () => {
    const meter = meterOf("d1");
    const a = await opened(meter, accountId);
    expect(a.rpcRps).toBe(7);
    const first = meter.reserve(a, 3);
    expect(first).toBeInstanceOf(Promise); // nothing set aside yet: a slice of 4 is taken first
    expect(await first).toBe(true);
    expect(await leases()).toEqual([{ holder: "d1", credits: 4 }]);
    expect(meter.reserve(a, 1)).toBe(true); // from the slice, no database round trip
    meter.settle(a, 3, 3, 1);
    meter.settle(a, 1, 0, 1); // a node error: released, counted, not charged
    expect(await stored()).toEqual({ credits: 10, usage: [] });
    await meter.flush();
    expect(await stored()).toEqual({ credits: 7, usage: [{ day: "2026-11-21", credits: 3, rpc_calls: 2 }] });
    // The slice less what was charged stays set aside while the account is in use.
    expect(await leases()).toEqual([{ holder: "d1", credits: 1 }]);
  });

  test("credits an idle lease gives back at a flush can be reserved again at once (not refused from a stale view)", async () => {
    const meter = meterOf("d1", { slice: 10 });
    const a = await opened(meter, accountId);
    // The slice takes every credit: nothing is free for anyone else.
    expect(await meter.reserve(a, 2)).toBe(true);
    expect(await leases()).toEqual([{ holder: "d1", credits: 10 }]);
    meter.settle(a, 2, 0, 0); // the call failed upstream: released, not charged
    await meter.flush(); // the interval had a call: the lease stays
    await meter.flush(); // an idle interval: the lease goes back
    expect(await leases()).toEqual([]);
    // Within the same second (no refresh of the view): the credits are free again.
    expect(await meter.reserve(a, 2)).toBe(true);
  });

  test("a call costing more than a slice sets aside what it needs; the last credits are taken as they are", async () => {
    const meter = meterOf("d1");
    const a = await opened(meter, accountId);
    expect(await meter.reserve(a, 6)).toBe(true);
    expect(await leases()).toEqual([{ holder: "d1", credits: 6 }]);
    expect(await meter.reserve(a, 2)).toBe(true); // wants 4, 4 are free: takes 4
    expect(await meter.reserve(a, 2)).toBe(true);
    expect(await leases()).toEqual([{ holder: "d1", credits: 10 }]);
    // Nothing is free any more, and the meter knows it without asking the database.
    expect(meter.reserve(a, 1)).toBe(false);
  });

  test("an account busy in the last flush interval gets slices of what its calls spent then", async () => {
    await addCredits(ctx.db, clock, accountId, 90);
    const meter = meterOf("d1");
    const a = await opened(meter, accountId);
    const oneCall = async () => {
      expect(await meter.reserve(a, 1)).toBe(true);
      meter.settle(a, 1, 1, 1);
    };
    for (let i = 0; i < 9; i++) await oneCall(); // slices of 4: 12 set aside, 9 spent
    await meter.flush();
    expect(await leases()).toEqual([{ holder: "d1", credits: 3 }]);
    for (let i = 0; i < 3; i++) await oneCall();
    await oneCall(); // 9 were spent in the last interval: the next slice is 9, not 4
    expect(await leases()).toEqual([{ holder: "d1", credits: 12 }]);
  });

  test("two daemons never set aside more than the balance between them", async () => {
    const one = meterOf("d1");
    const two = meterOf("d2");
    const a1 = await opened(one, accountId);
    const a2 = await opened(two, accountId);
    let served = 0;
    for (let i = 0; i < 8; i++) {
      for (const [m, a] of [
        [one, a1],
        [two, a2],
      ] as const) {
        const r = m.reserve(a, 1);
        if (typeof r === "boolean" ? r : await r) {
          m.settle(a, 1, 1, 1);
          served++;
        }
      }
    }
    expect(served).toBe(10);
    expect(await leases()).toEqual([
      { holder: "d1", credits: 6 },
      { holder: "d2", credits: 4 },
    ]);
    await one.flush();
    await two.flush();
    expect(await stored()).toEqual({ credits: 0, usage: [{ day: "2026-11-21", credits: 10, rpc_calls: 10 }] });
    expect(await leases()).toEqual([]);
  });

  test("credits promised to webhook deliveries are left alone", async () => {
    let promised = 7;
    const meter = meterOf("d1", { promised: () => promised });
    const a = await opened(meter, accountId);
    expect(await meter.reserve(a, 3)).toBe(true);
    expect(await leases()).toEqual([{ holder: "d1", credits: 3 }]);
    expect(meter.reserve(a, 1)).toBe(false);
    promised = 0; // the deliveries failed: their credits are free again, seen at the next read
    clock.advance(1000);
    await opened(meter, accountId);
    await a.refreshing;
    expect(await meter.reserve(a, 1)).toBe(true);
  });

  test("an idle account's credits go back at the flush; an account in use keeps them", async () => {
    const meter = meterOf("d1");
    const a = await opened(meter, accountId);
    expect(await meter.reserve(a, 1)).toBe(true);
    meter.settle(a, 1, 1, 1);
    await meter.flush(); // used since the last flush: 3 stay set aside
    expect(await leases()).toEqual([{ holder: "d1", credits: 3 }]);
    await meter.flush(); // no call since: they go back
    expect(await leases()).toEqual([]);
    expect(a.leased).toBe(0);
    expect((await stored()).credits).toBe(9);
  });

  test("charges land on the UTC day the calls settled, and a second flush writes nothing again", async () => {
    const meter = meterOf("d1");
    const a = await opened(meter, accountId);
    await meter.reserve(a, 1);
    meter.settle(a, 1, 1, 1);
    clock.advance(1000); // past midnight
    await meter.reserve(a, 2);
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
    const meter = meterOf("d1");
    const a = await opened(meter, accountId);
    for (let i = 0; i < 10; i++) {
      expect(await meter.reserve(a, 1)).toBe(true);
      meter.settle(a, 1, 1, 1);
    }
    await meter.flush();
    expect(meter.reserve(a, 1)).toBe(false);
    await addCredits(ctx.db, clock, accountId, 5);
    await opened(meter, accountId);
    expect(meter.reserve(a, 1)).toBe(false); // still the fresh view
    clock.advance(1000);
    await opened(meter, accountId);
    await a.refreshing;
    expect(await meter.reserve(a, 5)).toBe(true);
    expect(meter.reserve(a, 1)).toBe(false);
  });

  test("a lease not renewed for ten flush intervals is given back by another daemon's flush", async () => {
    const gone = meterOf("dead");
    const a = await opened(gone, accountId);
    expect(await gone.reserve(a, 1)).toBe(true); // 4 set aside, then the daemon dies
    const alive = meterOf("alive");
    const b = await opened(alive, accountId);
    await alive.flush();
    expect(await leases()).toEqual([{ holder: "dead", credits: 4 }]);
    clock.advance(10_001);
    await alive.flush();
    expect(await leases()).toEqual([]);
    clock.advance(1000);
    await opened(alive, accountId);
    await b.refreshing;
    expect(b.free).toBe(10);
  });

  test("reclaim(true) gives back every lease at once (the only daemon on its database, at start)", async () => {
    const gone = meterOf("dead");
    expect(await gone.reserve(await opened(gone, accountId), 1)).toBe(true);
    await meterOf("next").reclaim(true);
    expect(await leases()).toEqual([]);
  });

  test("the worker's stop flushes what is pending and gives every lease back", async () => {
    const meter = meterOf("d1", { flushIntervalSeconds: 60 });
    const worker = meter.worker();
    worker.start();
    const a = await opened(meter, accountId);
    expect(await meter.reserve(a, 3)).toBe(true);
    meter.settle(a, 3, 3, 3);
    await worker.stop();
    expect((await stored()).credits).toBe(7);
    expect(await leases()).toEqual([]);
  });

  test("a daemon whose lease was given back while it was cut off writes it again at its next flush", async () => {
    const slow = meterOf("slow");
    const a = await opened(slow, accountId);
    expect(await slow.reserve(a, 1)).toBe(true);
    slow.settle(a, 1, 1, 1);
    clock.advance(10_001);
    await meterOf("other").reclaim(false);
    expect(await leases()).toEqual([]);
    // It still spends the 3 it holds, so its row comes back as it is.
    expect(slow.reserve(a, 1)).toBe(true);
    await slow.flush();
    expect(await leases()).toEqual([{ holder: "slow", credits: 3 }]);
  });

  test("an account whose credits cannot be read is a failure, not a record: the database away is DATABASE_UNAVAILABLE, anything else INTERNAL", async () => {
    // A PostgreSQL URL where nothing listens: every query is refused at once.
    // Below the kernel's ephemeral range: no other test's server or connection is handed it meanwhile.
    const port = freePort();
    const away = openDatabase(`postgres://chain@127.0.0.1:${port}/chainwatch`);
    try {
      expect(await meterOf("d1", { db: away }).account(accountId)).toEqual({ ok: false, code: "DATABASE_UNAVAILABLE" });
    } finally {
      await away.destroy();
    }
    expect(await meterOf("d1").account("acc_none")).toEqual({ ok: false, code: "INTERNAL" });
  });
});
