import { describe, expect, test } from "bun:test";
import { type AccountMeter, newAccountMeter } from "../../../src/rpc/credits/account-meter.ts";
import { applyTake, renewLeases, sliceWanted, takeAsk, undoRenewals } from "../../../src/rpc/credits/lease.ts";

const meter = (fields: Partial<AccountMeter>, id = "acc_1"): AccountMeter => ({ ...newAccountMeter(id), ...fields });
const lease = (a: AccountMeter) => ({ leased: a.leased, unbilled: a.unbilled, free: a.free, leaseChanges: a.leaseChanges });

describe("the lease of credits set aside", () => {
  test.each([
    // [pace, takes since the flush, slice wanted with a configured slice of 4]
    [0, 0, 4],
    [9, 0, 9],
    [0, 1, 8],
    [9, 2, 36],
    [1, 25, 4 * 2 ** 20],
  ])("pace %d after %d takes asks for %d", (pace, takesSinceFlush, want) => {
    expect(sliceWanted(meter({ pace, takesSinceFlush }), 4)).toBe(want);
  });

  test.each([
    ["covered: nothing to take", { leased: 5 }, 3, null],
    ["short by 2: needs 2, wants a slice", { leased: 1 }, 3, { need: 2, want: 4 }],
    ["a call dearer than a slice wants what it needs", {}, 6, { need: 6, want: 6 }],
    ["held and unbilled credits are not spendable", { leased: 6, held: 3, unbilled: 2 }, 3, { need: 2, want: 4 }],
  ] as const)("%s", (_name, fields, cost, ask) => {
    expect(takeAsk(meter(fields), cost, 4)).toEqual(ask);
  });

  test("a take adds what it got to the lease, and what it saw free less that becomes the hint", () => {
    const a = meter({ leased: 1, free: 99 });
    applyTake(a, { taken: 4, free: 10 });
    expect([a.leased, a.free, a.leaseChanges, a.takesSinceFlush]).toEqual([5, 6, 1, 1]);
    applyTake(a, { taken: 0, free: 0 }); // nothing free: the hint says so, and no slice was taken
    expect([a.leased, a.free, a.leaseChanges, a.takesSinceFlush]).toEqual([5, 0, 2, 1]);
  });

  test("a flush charges what was spent; an account used in the interval keeps the rest, an idle one gives it back", () => {
    const busy = meter({ leased: 10, held: 1, unbilled: 3, reservedSinceFlush: 4, takesSinceFlush: 2 }, "acc_busy");
    const idle = meter({ leased: 6, unbilled: 2, free: 1 }, "acc_idle");
    const unused = meter({}, "acc_unused");
    const renewals = renewLeases([busy, idle, unused], new Map([["acc_busy", 3], ["acc_idle", 2]]), false);
    expect(renewals.map((r) => [r.a.accountId, r.charged, r.gaveBack])).toEqual([
      ["acc_busy", 3, 0],
      ["acc_idle", 2, 4],
    ]);
    expect([busy.leased, busy.unbilled, busy.pace, busy.reservedSinceFlush, busy.takesSinceFlush]).toEqual([7, 0, 4, 0, 0]);
    expect(lease(idle)).toEqual({ leased: 0, unbilled: 0, free: 5, leaseChanges: 1 });
  });

  test("an idle account with a call in flight keeps its lease; every lease goes back when stopping, less what is held", () => {
    const inFlight = meter({ leased: 5, held: 2 });
    expect(renewLeases([inFlight], new Map(), false)).toEqual([{ a: inFlight, charged: 0, gaveBack: 0 }]);
    const stopping = meter({ leased: 5, held: 2, reservedSinceFlush: 2 });
    renewLeases([stopping], new Map(), true);
    expect([stopping.leased, stopping.free]).toEqual([2, 3]);
  });

  test("a renewal whose write failed is undone: the charges and the credits given back are the lease's again", () => {
    const a = meter({ leased: 6, unbilled: 2, free: 1 });
    const before = lease(a);
    undoRenewals(renewLeases([a], new Map([["acc_1", 2]]), false));
    expect(lease(a)).toEqual({ ...before, leaseChanges: 1 });
  });
});
