import type { Logger } from "../lib/log.ts";
import { urlLabel } from "../net/url-label.ts";

/** What the health log needs of an attempt: where it went (null: no target) and how it ended. */
export type AttemptSummary = { url: string | null; error: string | null; statusCode: number | null };

export type EndpointHealth = { record(accountId: string, deliveryId: string, attempt: AttemptSummary): void };

/**
 * Logs delivery trouble once per state change per endpoint (account + URL), not per attempt: a
 * receiver that is down for an hour gives one `warn` when it starts failing and one `info` when
 * it answers 2xx again, however many retries happen in between. The URL is logged as scheme, host
 * and port only: receivers' tokens sit in paths and query strings (`deliveries list` shows the rest). At most `max` endpoints are remembered; the
 * oldest is forgotten first (it may then log its next failure again).
 */
export function createEndpointHealth(log: Logger, max = 10_000): EndpointHealth {
  const failing = new Map<string, boolean>();
  return {
    record(accountId, deliveryId, attempt) {
      const key = `${accountId} ${attempt.url ?? ""}`;
      const url = attempt.url === null ? null : urlLabel(attempt.url);
      const wasFailing = failing.get(key);
      const isFailing = attempt.error !== null;
      if (wasFailing === isFailing || (wasFailing === undefined && !isFailing)) {
        if (wasFailing === undefined) remember(failing, key, isFailing, max);
        return;
      }
      remember(failing, key, isFailing, max);
      const fields = { account_id: accountId, url, delivery_id: deliveryId };
      if (isFailing) log.warn("webhook endpoint failing", { ...fields, error: attempt.error, status_code: attempt.statusCode });
      else log.info("webhook endpoint recovered", fields);
    },
  };
}

function remember(map: Map<string, boolean>, key: string, value: boolean, max: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > max) map.delete(map.keys().next().value as string);
}

