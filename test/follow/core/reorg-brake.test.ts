import { describe, expect, test } from "bun:test";
import { type BrakeHeld, createReorgBrake } from "../../../src/follow/core/reorg-brake.ts";
import type { Result } from "../../../src/lib/error-codes.ts";

// The follower's reorg brake (docs/chains.md) over a hand-moved time.

const T0 = Date.UTC(2026, 10, 21, 12, 0, 0);

/** "ok", or the sentence of the brake's FOLLOWER_PAUSED failure. */
function outcome(run: () => Result<object, BrakeHeld>): string {
  const r = run();
  if (r.ok) return "ok";
  expect(r.code).toBe("FOLLOWER_PAUSED");
  return r.error;
}

const PAUSED = (until: string) => `reorg brake: more than 3 reorgs within a minute (max_reorgs_per_minute); following paused until ${until}`;

describe("reorg brake", () => {
  test("admits max_reorgs_per_minute reorgs in a minute, then holds the network until the oldest is a minute old", () => {
    const brake = createReorgBrake({ maxPerMinute: 3 });
    expect([0, 10_000, 20_000].map((t) => outcome(() => brake.admit(T0 + t)))).toEqual(["ok", "ok", "ok"]);
    expect(outcome(() => brake.admit(T0 + 30_000))).toBe(PAUSED("2026-11-21T12:01:00.000+00:00"));
    expect(outcome(() => brake.check(T0 + 59_999))).toBe(PAUSED("2026-11-21T12:01:00.000+00:00"));
    expect(outcome(() => brake.check(T0 + 60_000))).toBe("ok");
    // The window slides: the reorgs at +10 s and +20 s still count, so one more fits.
    expect(outcome(() => brake.admit(T0 + 60_000))).toBe("ok");
    expect(outcome(() => brake.admit(T0 + 61_000))).toBe(PAUSED("2026-11-21T12:01:10.000+00:00"));
  });

  test("0 is no limit", () => {
    const brake = createReorgBrake({ maxPerMinute: 0 });
    for (let i = 0; i < 1000; i++) expect(outcome(() => brake.admit(T0))).toBe("ok");
    expect(outcome(() => brake.check(T0))).toBe("ok");
  });
});
