/**
 * The source of "now"; injected everywhere so tests can move time. `now()` is the wall clock in
 * milliseconds since the epoch: what is stored and shared with other daemons, and what may step
 * (an operator or NTP setting it). `monotonic()` counts milliseconds from an arbitrary start and
 * never steps: what intervals measured inside this process (rate windows, backoffs) are measured on.
 */
export type Clock = { now(): number; monotonic(): number };

/** Both readings of a clock at one moment. */
export type Instant = { wallMs: number; monoMs: number };

export const instantOf = (clock: Clock): Instant => ({ wallMs: clock.now(), monoMs: clock.monotonic() });

/** The wall clock, and the process's monotonic one. */
export const systemClock: Clock = { now: () => Date.now(), monotonic: () => performance.now() };
