import type { Logger } from "../lib/log.ts";
import { urlLabel } from "../net/url-label.ts";

/** What the health log needs of an attempt: where it went (null: no target), when it began and how it ended. */
export type AttemptSummary = { url: string | null; startedAt: number; error: string | null; statusCode: number | null };

export type EndpointHealth = { record(accountId: string, deliveryId: string, attempt: AttemptSummary): void };

/** When a run of failures makes an endpoint *failing* in the log: this many in a row, or failures for this long. */
export const FAILING_AFTER = { failures: 5, ms: 60_000 } as const;

/** An endpoint's current run: failures in a row, when the first began, whether `failing` was logged. */
type Run = { failures: number; since: number; logged: boolean };

/**
 * Logs delivery trouble once per sustained outage per endpoint (account + URL), not per attempt: an
 * endpoint is *failing* once its attempts have failed 5 times in a row or for 60 s (`warn`, once),
 * and *recovered* is logged once (`info`) when a failing endpoint next answers 2xx. A stray failure
 * between successes (a receiver answering 1 % of requests with a 500) logs nothing; the attempt
 * counters in /metrics still count it. The URL is logged as scheme, host and port only: receivers'
 * tokens sit in paths and query strings (`deliveries list` shows the rest). At most `max` endpoints
 * with a run of failures are remembered; the oldest is forgotten first (it may then log again).
 */
export function createEndpointHealth(log: Logger, max = 10_000): EndpointHealth {
  const runs = new Map<string, Run>();
  return {
    record(accountId, deliveryId, attempt) {
      // A success while no endpoint has a run of failures (the usual case) has nothing to end.
      if (attempt.error === null && runs.size === 0) return;
      const key = `${accountId} ${attempt.url ?? ""}`;
      const run = runs.get(key);
      const label = () => (attempt.url === null ? null : urlLabel(attempt.url));
      if (attempt.error === null) {
        if (!run) return;
        runs.delete(key);
        if (run.logged) log.info("webhook endpoint recovered", { account_id: accountId, url: label(), delivery_id: deliveryId });
        return;
      }
      const next: Run = run ?? { failures: 0, since: attempt.startedAt, logged: false };
      next.failures += 1;
      next.since = Math.min(next.since, attempt.startedAt);
      remember(runs, key, next, max);
      if (next.logged) return;
      if (next.failures < FAILING_AFTER.failures && attempt.startedAt - next.since < FAILING_AFTER.ms) return;
      next.logged = true;
      log.warn("webhook endpoint failing", {
        account_id: accountId,
        url: label(),
        delivery_id: deliveryId,
        error: attempt.error,
        status_code: attempt.statusCode,
        failures: next.failures,
      });
    },
  };
}

function remember(map: Map<string, Run>, key: string, value: Run, max: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > max) map.delete(map.keys().next().value as string);
}
