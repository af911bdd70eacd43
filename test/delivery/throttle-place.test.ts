import { describe, expect, test } from "bun:test";
import type { SharedRateBudget } from "../../src/db/primitives.ts";
import { createDeliveryThrottle } from "../../src/delivery/throttle.ts";

// Where the throttle puts an account's next sends (docs/webhooks.md): evenly spaced slots of
// the clock seconds, at most max_rps in each, after whatever it placed before. Pure: no database.

const S = 1_800_000_000; // a clock second, in seconds
const at = (ms: number) => S * 1000 + ms;
const nothingWaits = async () => null;

/** A budget in memory, as rate_windows keeps it: what every daemon took of each key and second. */
function memoryBudget(): SharedRateBudget & { used: Map<string, number> } {
  const used = new Map<string, number>();
  return {
    used,
    async lease(key, second, want, limit) {
      const before = used.get(`${key}@${second}`) ?? 0;
      used.set(`${key}@${second}`, before + want);
      return Math.max(0, Math.min(want, limit - before));
    },
    async prune() {},
  };
}

describe("placing the sends of a rate-limited webhook", () => {
  test("at 20 a second: the first goes now, the next ones 50 ms apart, 20 in each clock second", async () => {
    const t = createDeliveryThrottle({ budget: null });
    const due = await t.place("acc_a", 20, 45, at(0), nothingWaits);
    expect(due.slice(0, 4)).toEqual([at(0), at(50), at(100), at(150)]);
    expect(due[19]).toBe(at(950));
    expect(due[20]).toBe(at(1000));
    expect(due[44]).toBe(at(2200));
    const perSecond = new Map<number, number>();
    for (const d of due) perSecond.set(Math.floor(d / 1000), (perSecond.get(Math.floor(d / 1000)) ?? 0) + 1);
    expect([...perSecond.values()]).toEqual([20, 20, 5]);
  });

  test("later sends queue behind those placed before, in the order asked", async () => {
    const t = createDeliveryThrottle({ budget: null });
    const first = await t.place("acc_a", 10, 15, at(0), nothingWaits);
    const second = await t.place("acc_a", 10, 3, at(10), nothingWaits);
    expect(first[14]).toBe(at(1400));
    expect(second).toEqual([at(1500), at(1600), at(1700)]);
  });

  test("slots of the current second that went by unused are not caught up in a burst", async () => {
    const t = createDeliveryThrottle({ budget: null });
    const due = await t.place("acc_a", 10, 3, at(730), nothingWaits);
    // The slot under way (700 ms) goes now; no send for 0-600 ms is made up for.
    expect(due).toEqual([at(700), at(800), at(900)]);
    expect(await t.place("acc_a", 10, 2, at(2000), nothingWaits)).toEqual([at(2000), at(2100)]);
  });

  test("accounts and limits have lanes of their own", async () => {
    const t = createDeliveryThrottle({ budget: null });
    await t.place("acc_a", 5, 10, at(0), nothingWaits);
    expect(await t.place("acc_b", 5, 1, at(0), nothingWaits)).toEqual([at(0)]);
    // A new limit starts afresh instead of behind what the old one placed.
    expect(await t.place("acc_a", 50, 1, at(0), nothingWaits)).toEqual([at(0)]);
  });

  test("with a budget shared by several daemons, each second holds max_rps sends between them", async () => {
    const budget = memoryBudget();
    const a = createDeliveryThrottle({ budget });
    const b = createDeliveryThrottle({ budget });
    const fromA = await a.place("acc_a", 4, 6, at(0), nothingWaits);
    const fromB = await b.place("acc_a", 4, 6, at(0), nothingWaits);
    const count = new Map<number, number>();
    for (const d of [...fromA, ...fromB]) count.set(Math.floor(d / 1000), (count.get(Math.floor(d / 1000)) ?? 0) + 1);
    expect([...count.entries()].sort()).toEqual([
      [S, 4],
      [S + 1, 4],
      [S + 2, 4],
    ]);
  });

  test("a daemon new to an account goes on after the rows still waiting for their slots", async () => {
    const t = createDeliveryThrottle({ budget: null });
    // Rows placed before a restart wait until 3.45 s: the next send goes in the slot after.
    expect(await t.place("acc_a", 20, 2, at(0), async () => at(3450))).toEqual([at(3500), at(3550)]);
  });

  test("a daemon that finds the second taken by another goes on after that daemon's schedule", async () => {
    const budget = memoryBudget();
    const a = createDeliveryThrottle({ budget });
    const b = createDeliveryThrottle({ budget });
    const placedByA = await a.place("acc_a", 2, 40, at(0), nothingWaits);
    // b knew the account (an earlier send) but not a's 20 seconds of schedule.
    await b.place("acc_a", 2, 1, at(-5000), nothingWaits);
    let asked = 0;
    const fromB = await b.place("acc_a", 2, 1, at(0), async () => (asked++, placedByA[39]));
    expect(asked).toBe(1);
    expect(fromB).toEqual([at(20_000)]);
  });

  test("wakes the loop at the next slot while sends are ahead, then not at all", async () => {
    const t = createDeliveryThrottle({ budget: null });
    expect(t.nextSlotAfter(at(0))).toBe(null);
    await t.place("acc_a", 20, 3, at(0), nothingWaits);
    // A row is claimable once its slot is past: 1 ms after it.
    expect(t.nextSlotAfter(at(2))).toBe(at(51));
    expect(t.nextSlotAfter(at(51))).toBe(at(101));
    expect(t.nextSlotAfter(at(100))).toBe(at(101));
    expect(t.nextSlotAfter(at(101))).toBe(null);
  });
});
