import { expect, test } from "bun:test";
import { steadyWallClock } from "../../src/lib/steady-wall-clock.ts";
import { manualClock } from "../support/clock.ts";

test("follows the wall clock as time passes, and moves only as time passed across a step either way", () => {
  const clock = manualClock(1_000_000);
  const steps: number[] = [];
  const now = steadyWallClock(clock, (ms) => void steps.push(ms));
  clock.advance(1000);
  expect(now()).toBe(1_001_000);
  clock.step(3_600_000);
  clock.advance(1000);
  expect(now()).toBe(1_002_000);
  clock.advance(1000);
  expect(now()).toBe(1_003_000);
  clock.step(-7_200_000);
  expect(now()).toBe(1_003_000);
  expect(steps).toEqual([3_600_000, -7_200_000]);
  // A drift within the tolerance is followed, not taken for a step.
  clock.step(1500);
  expect(now()).toBe(1_004_500);
  expect(steps).toHaveLength(2);
});
