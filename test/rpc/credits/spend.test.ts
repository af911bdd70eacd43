import { describe, expect, test } from "bun:test";
import { type AccountMeter, newAccountMeter } from "../../../src/rpc/credits/account-meter.ts";
import { releaseAndCharge, reserveFromLease, spendable } from "../../../src/rpc/credits/spend.ts";

const meter = (fields: Partial<AccountMeter>): AccountMeter => ({ ...newAccountMeter("acc_1"), ...fields });

describe("the in-memory spend of a lease", () => {
  test("spendable is what is set aside less what calls hold and what is charged but not written", () => {
    expect(spendable(meter({ leased: 10, held: 3, unbilled: 2 }))).toBe(5);
  });

  test.each([
    // [what the account has, cost, outcome, held after, reserved since the flush after]
    ["a free call holds nothing", { leased: 0, free: 0 }, 0, "held", 0, 0],
    ["covered by the lease: held at once", { leased: 5, held: 1, unbilled: 1 }, 3, "held", 4, 3],
    ["exactly what is left", { leased: 4 }, 4, "held", 4, 4],
    ["short, and the hint says a lease could cover the rest: take", { leased: 2, free: 1 }, 3, "take", 0, 0],
    ["short, and the hint says nothing could: refused without asking", { leased: 2, free: 0 }, 3, "refused", 0, 0],
    ["nothing set aside, credits free: take", { free: 10 }, 1, "take", 0, 0],
  ] as const)("%s", (_name, fields, cost, outcome, heldAfter, reservedAfter) => {
    const a = meter(fields);
    expect(reserveFromLease(a, cost)).toBe(outcome);
    expect([a.held, a.reservedSinceFlush]).toEqual([heldAfter, reservedAfter]);
  });

  test("a settlement releases what its calls held and charges what they spent", () => {
    const a = meter({ leased: 10, held: 4, unbilled: 1 });
    releaseAndCharge(a, 4, 3);
    expect([a.held, a.unbilled, spendable(a)]).toEqual([0, 4, 6]);
  });
});
