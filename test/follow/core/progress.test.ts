import { describe, expect, test } from "bun:test";
import { createProgress } from "../../../src/follow/core/progress.ts";

// A follower's blocks/s and its `catching up` line, over times the test hands it.

const T0 = Date.UTC(2026, 10, 23);

describe("blocks per second", () => {
  test("is the current window's rate until a 10 s window is full, then the last full window's", () => {
    const p = createProgress(T0);
    expect(p.blocksPerSecond(T0)).toBe(0);
    p.counted(30, 0, T0 + 2_000);
    expect(p.blocksPerSecond(T0 + 4_000)).toBe(7.5);
    // The window closes at the first commit past its end: 50 blocks in 12.5 s.
    p.counted(20, 0, T0 + 12_500);
    expect(p.blocksPerSecond(T0 + 13_000)).toBe(4);
    p.counted(1_000, 0, T0 + 14_000);
    expect(p.blocksPerSecond(T0 + 20_000)).toBe(4);
  });
});

describe("the catching up line", () => {
  test("comes only more than 100 heights behind, at most once every 10 s, with the rate and the time left", () => {
    const p = createProgress(T0);
    expect(p.counted(10, 500, T0 + 5_000)).toBeNull();
    expect(p.counted(10, 100, T0 + 10_000)).toBeNull();
    // The first window closed at the call before: 20 blocks in 10 s.
    expect(p.counted(10, 101, T0 + 10_000)).toEqual({ blocks_per_second: 2, eta_seconds: 51 });
    expect(p.counted(10, 400, T0 + 19_999)).toBeNull();
    expect(p.counted(10, 400, T0 + 20_000)).toEqual({ blocks_per_second: 3, eta_seconds: 133 });
  });

  test("has no time left to show while no block has been stored", () => {
    const p = createProgress(T0);
    expect(p.counted(0, 1_000, T0 + 10_000)).toEqual({ blocks_per_second: 0, eta_seconds: null });
  });
});
