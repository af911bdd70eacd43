/** The source of "now" in milliseconds; injected everywhere so tests can move time. */
export type Clock = { now(): number };

/** The wall clock. */
export const systemClock: Clock = { now: () => Date.now() };
