import { describe, expect, test } from "bun:test";
import { type AccountMeter, NEVER_READ, newAccountMeter } from "../../../src/rpc/credits/account-meter.ts";
import { applyViewRow, viewNeeds } from "../../../src/rpc/credits/view.ts";

const meter = (fields: Partial<AccountMeter>): AccountMeter => ({ ...newAccountMeter("acc_1"), ...fields });

describe("the account's view: its rate budget and the free-credit hint", () => {
  test("a row read sets rpc_rps and the free hint: the balance less every lease and this daemon's promises", () => {
    const a = meter({});
    applyViewRow(a, { rpc_rps: 7, credits: "100", leased: "30" }, 0, 20, 5_000);
    expect([a.rpcRps, a.free, a.refreshedAt]).toEqual([7, 50, 5_000]);
  });

  test("a row read before this daemon changed its lease leaves the hint the change set", () => {
    const a = meter({ free: 3, leaseChanges: 2 });
    applyViewRow(a, { rpc_rps: 7, credits: 100, leased: 0 }, 1, 0, 5_000);
    expect([a.rpcRps, a.free]).toEqual([7, 3]);
  });

  test.each([
    ["never read", { refreshedAt: NEVER_READ }, 0, "first"],
    ["read 999 ms ago", { refreshedAt: 1 }, 1_000, "none"],
    ["read a second ago", { refreshedAt: 1 }, 1_001, "stale"],
    ["stale, but a read is in flight", { refreshedAt: 1, refreshing: Promise.resolve(null) }, 5_000, "none"],
  ] as const)("%s", (_name, fields, nowMs, needs) => {
    expect(viewNeeds(meter(fields), nowMs, 1_000)).toBe(needs);
  });
});
