import type { Clock } from "../../src/lib/clock.ts";

/**
 * A clock tests move by hand. `advance` and `set` move time: both readings. `step` moves only the
 * wall clock, as an operator or NTP setting it would; the monotonic reading stays.
 */
export function manualClock(
  start = Date.UTC(2026, 10, 21, 12, 0, 0),
): Clock & { advance(ms: number): void; set(ms: number): void; step(ms: number): void } {
  let wall = start;
  let mono = 0;
  return {
    now: () => wall,
    monotonic: () => mono,
    advance: (ms) => {
      wall += ms;
      mono += ms;
    },
    set: (ms) => {
      mono += ms - wall;
      wall = ms;
    },
    step: (ms) => void (wall += ms),
  };
}
