import { describe, expect, test } from "bun:test";
import { createSlidingWindowLimiter } from "../../src/auth/rate-limiter.ts";

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
