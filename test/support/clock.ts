import type { Clock } from "../../src/lib/clock.ts";

/** A clock tests move by hand. */
export function manualClock(start = Date.UTC(2026, 10, 21, 12, 0, 0)): Clock & { advance(ms: number): void; set(ms: number): void } {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms), set: (ms) => void (t = ms) };
}
