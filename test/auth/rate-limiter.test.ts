import { describe, expect, test } from "bun:test";
import { createLocalRateLimiter, createSlidingWindowLimiter } from "../../src/auth/rate-limiter.ts";
import { instantOf } from "../../src/lib/clock.ts";
import { manualClock } from "../support/clock.ts";

// The in-memory window (SQLite's limiter, and each daemon's own window on PostgreSQL).
describe("sliding window: acquire n at once", () => {
  test("admits what is left of the limit and no more; the rest of a batch is refused", () => {
    const w = createSlidingWindowLimiter();
    expect(w.acquire("k", 10, 7, 1000)).toBe(7);
    expect(w.room("k", 10, 1000)).toBe(3);
    expect(w.acquire("k", 10, 7, 1500)).toBe(3);
    expect(w.acquire("k", 10, 1, 1999)).toBe(0);
    // The first 7 are 1000 ms old at 2000; the 3 of 1500 still count.
    expect(w.acquire("k", 10, 10, 2000)).toBe(7);
  });

  test("room records nothing; other keys have their own window", () => {
    const w = createSlidingWindowLimiter();
    expect(w.room("a", 2, 0)).toBe(2);
    expect(w.room("a", 2, 0)).toBe(2);
    expect(w.tryAcquire("a", 2, 0)).toBe(true);
    expect(w.tryAcquire("a", 2, 0)).toBe(true);
    expect(w.tryAcquire("a", 2, 0)).toBe(false);
    expect(w.tryAcquire("b", 2, 0)).toBe(true);
  });

  test("a stamp older than the newest one (a caller that waited) counts until the newest expires", () => {
    const w = createSlidingWindowLimiter();
    expect(w.acquire("k", 2, 1, 1500)).toBe(1);
    expect(w.acquire("k", 2, 1, 1200)).toBe(1);
    expect(w.room("k", 2, 2200)).toBe(0);
    expect(w.room("k", 2, 2500)).toBe(2);
  });
});

describe("sliding window: a bounded number of keys", () => {
  test("past maxKeys the key remembered longest is forgotten (its window starts afresh); the others keep theirs", () => {
    const w = createSlidingWindowLimiter(1000, 2);
    expect(w.acquire("a", 1, 1, 0)).toBe(1);
    expect(w.acquire("b", 1, 1, 0)).toBe(1);
    expect(w.acquire("a", 1, 1, 10)).toBe(0);
    // A third key: "a" (the first remembered) goes, "b" stays refused.
    expect(w.acquire("c", 1, 1, 20)).toBe(1);
    expect(w.acquire("b", 1, 1, 30)).toBe(0);
    expect(w.acquire("a", 1, 1, 40)).toBe(1);
  });
});

describe("a daemon's own limiter when the wall clock steps", () => {
  test("stepped back an hour: the window neither empties nor stays shut; it slides on the monotonic clock", () => {
    const clock = manualClock();
    const l = createLocalRateLimiter();
    const take = (n: number) => l.acquire("k", 10, n, instantOf(clock));
    expect(take(10)).toBe(10);
    clock.step(-3_600_000);
    expect(take(1)).toBe(0);
    clock.advance(999);
    expect(take(1)).toBe(0);
    clock.advance(1);
    expect(take(20)).toBe(10);
  });

  test("stepped forward an hour: the window does not empty", () => {
    const clock = manualClock();
    const l = createLocalRateLimiter();
    const take = (n: number) => l.acquire("k", 10, n, instantOf(clock));
    expect(take(10)).toBe(10);
    clock.step(3_600_000);
    expect(take(1)).toBe(0);
    clock.advance(1000);
    expect(take(20)).toBe(10);
  });
});
