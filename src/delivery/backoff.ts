/** What a failed attempt leads to: another try at `nextAttemptAt`, or the end of the road. */
export type FailureOutcome = { status: "pending"; nextAttemptAt: number } | { status: "failed"; nextAttemptAt: number };

/** Seconds to wait after failed attempt number `attempt` (1-based): backoff[attempt-1], the last value repeating. */
export function retryDelaySeconds(backoff: readonly number[], attempt: number): number {
  if (backoff.length === 0) return 0;
  return backoff[Math.min(Math.max(attempt, 1), backoff.length) - 1];
}

/** How often a delivery is tried and how long it waits between tries ([delivery] config). */
export type RetryPolicy = { maxAttempts: number; backoffSeconds: readonly number[] };

/**
 * After `attempts` failed attempts in all: `failed` once they reach `maxAttempts`, else pending
 * again after the backoff. A failed row keeps its last schedule time; only `retry` moves it.
 */
export function afterFailure(
  attempts: number,
  policy: RetryPolicy,
  nowMs: number,
): FailureOutcome {
  if (attempts >= policy.maxAttempts) return { status: "failed", nextAttemptAt: nowMs };
  return { status: "pending", nextAttemptAt: nowMs + retryDelaySeconds(policy.backoffSeconds, attempts) * 1000 };
}
