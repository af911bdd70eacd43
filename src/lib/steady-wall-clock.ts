import type { Clock } from "./clock.ts";

/** A difference between the wall clock's and the monotonic clock's progress beyond this is a step. */
export const CLOCK_STEP_TOLERANCE_MS = 2_000;

/**
 * A wall clock that does not jump: between two readings it moves as the wall clock did, unless
 * the wall clock moved more than `CLOCK_STEP_TOLERANCE_MS` apart from the monotonic clock (it was
 * stepped, forward or back); then it moves as the monotonic clock did, and `onStep` is told by how
 * much the wall clock stepped. A step is absorbed, not caught up with: this clock stays that far
 * from the wall clock until a step the other way (the clock set right again) or a restart.
 * What compares absolute stored times with "now" and must not act early reads it (payment expiry).
 */
export function steadyWallClock(clock: Clock, onStep: (stepMs: number) => void): () => number {
  let wall = clock.now();
  let mono = clock.monotonic();
  let steady = wall;
  return () => {
    const w = clock.now();
    const m = clock.monotonic();
    const dw = w - wall;
    const dm = m - mono;
    if (Math.abs(dw - dm) > CLOCK_STEP_TOLERANCE_MS) {
      steady += dm;
      onStep(dw - dm);
    } else steady += dw;
    wall = w;
    mono = m;
    return steady;
  };
}
