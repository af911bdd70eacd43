import { describe, expect, test } from "bun:test";
import { addCharge, type ChargeBatch, chargesInLockOrder, creditsByAccount, mergeCharges } from "../../../src/rpc/credits/pending-charges.ts";

describe("the charges waiting for the next flush", () => {
  test("settlements of one account and day add up to one charge; another day or account is another", () => {
    const batch: ChargeBatch = new Map();
    addCharge(batch, "acc_b", "2026-11-21", 3, 1);
    addCharge(batch, "acc_b", "2026-11-21", 0, 1); // a node error: counted, not charged
    addCharge(batch, "acc_b", "2026-11-22", 2, 1);
    addCharge(batch, "acc_a", "2026-11-22", 5, 2);
    expect([...batch.values()]).toEqual([
      { accountId: "acc_b", day: "2026-11-21", credits: 3, calls: 2 },
      { accountId: "acc_b", day: "2026-11-22", credits: 2, calls: 1 },
      { accountId: "acc_a", day: "2026-11-22", credits: 5, calls: 2 },
    ]);
    expect(creditsByAccount(batch)).toEqual(new Map([["acc_b", 5], ["acc_a", 5]]));
    expect(chargesInLockOrder(batch).map((p) => `${p.accountId} ${p.day}`)).toEqual(["acc_a 2026-11-22", "acc_b 2026-11-21", "acc_b 2026-11-22"]);
  });

  test("a batch whose write failed joins what was settled since", () => {
    const failed: ChargeBatch = new Map();
    addCharge(failed, "acc_a", "2026-11-21", 3, 3);
    const since: ChargeBatch = new Map();
    addCharge(since, "acc_a", "2026-11-21", 1, 1);
    addCharge(since, "acc_b", "2026-11-21", 2, 1);
    mergeCharges(failed, since);
    expect(chargesInLockOrder(failed)).toEqual([
      { accountId: "acc_a", day: "2026-11-21", credits: 4, calls: 4 },
      { accountId: "acc_b", day: "2026-11-21", credits: 2, calls: 1 },
    ]);
  });
});
