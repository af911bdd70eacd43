import { describe, expect, test } from "bun:test";
import { afterFailure, retryDelaySeconds } from "../../src/delivery/backoff.ts";

const backoff = [5, 30, 120];

describe("retry backoff (docs/webhooks.md)", () => {
  test.each([
    [1, 5],
    [2, 30],
    [3, 120],
    [4, 120],
    [50, 120],
  ])("waits backoff[attempt-1] after failed attempt %d (%d s), the last value repeating", (attempt, seconds) => {
    expect(retryDelaySeconds(backoff, attempt)).toBe(seconds);
  });

  test("schedules the next attempt from now while attempts remain", () => {
    expect(afterFailure(2, { maxAttempts: 3, backoffSeconds: backoff }, 1_000_000)).toEqual({ status: "pending", nextAttemptAt: 1_030_000 });
  });

  test("fails the delivery once attempts reach max_attempts", () => {
    expect(afterFailure(3, { maxAttempts: 3, backoffSeconds: backoff }, 1_000_000)).toEqual({ status: "failed", nextAttemptAt: 1_000_000 });
  });

  test("a zero backoff retries at once", () => {
    expect(afterFailure(1, { maxAttempts: 3, backoffSeconds: [0] }, 7)).toEqual({ status: "pending", nextAttemptAt: 7 });
  });
});
