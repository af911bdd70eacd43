import type { Db } from "../db/database.ts";
import type { EndpointOutcomes, FailingEndpoint } from "../delivery/endpoint-outcomes.ts";
import type { Logger } from "../lib/log.ts";
import type { Metrics } from "../lib/metrics.ts";
import { rfc3339 } from "../lib/time.ts";
import { urlLabel } from "../net/url-label.ts";
import { addNotices, type NewNotice } from "../notices/notices.ts";
import { switchOffIfStill } from "./endpoints.ts";
import { markEndpointDisabled, recordEndpointAttempts } from "./health-store.ts";

// The endpoints' side of the delivery loop's outcomes (docs/webhooks.md, endpoint health): each
// settled batch folded into `endpoint_health` in the settlement's transaction, and an endpoint
// that has done nothing but fail for `delivery.disable_after_hours` switched off after it
// committed, in a short transaction of its own: the endpoint (if still enabled on the URL that
// failed), its run marked, the notice. Rare by nature, so none of that is on the loop's hot path.

export type HealthWatchDeps = { db: Db; log: Logger; metrics: Metrics; disableAfterHours: number };

/** The notice of an endpoint switched off after failing since `failingSince`. */
export function endpointDisabledNotice(e: Pick<FailingEndpoint, "endpointId" | "accountId" | "url" | "failingSince" | "lastError">, nowMs: number): NewNotice {
  return {
    accountId: e.accountId,
    type: "endpoint_disabled",
    message:
      `Webhook ${urlLabel(e.url)} disabled: every attempt failed since ${rfc3339(e.failingSince)} (last error: ${e.lastError}). ` +
      "Events are still stored and listed; enable the webhook to resume deliveries.",
    deliveryId: null,
    endpointId: e.endpointId,
    createdAt: nowMs,
  };
}

/** The EndpointOutcomes the composition root hands the delivery loop. */
export function createHealthWatch(deps: HealthWatchDeps): EndpointOutcomes {
  const disableAfterMs = deps.disableAfterHours * 3_600_000;
  const disabledTotal = deps.metrics.counter("chainwatch_webhook_endpoints_disabled_total");
  return {
    record: (trx, attempts, nowMs) => recordEndpointAttempts(trx, attempts, nowMs, disableAfterMs),
    async switchOff(endpoints, nowMs) {
      try {
        for (const e of await switchOffFailing(deps.db, endpoints, nowMs)) {
          disabledTotal.inc();
          deps.log.warn("webhook endpoint disabled", {
            account_id: e.accountId,
            url: urlLabel(e.url),
            failing_since: rfc3339(e.failingSince),
            error: e.lastError,
            status_code: e.lastStatusCode,
          });
        }
      } catch (e) {
        // Left for the next failed attempt to try again: the settlement stands.
        deps.log.error("webhook endpoint not disabled", { count: endpoints.length, error: String(e) });
      }
    },
  };
}

/**
 * Switches off each endpoint that is still enabled on the URL that failed, records it and tells the
 * account holder; returns the ones this call switched off (another daemon, or the account holder,
 * may have been first: those are left alone, so each is logged and counted once).
 */
export async function switchOffFailing(db: Db, endpoints: readonly FailingEndpoint[], nowMs: number): Promise<FailingEndpoint[]> {
  const done: FailingEndpoint[] = [];
  for (const e of endpoints) {
    const switched = await db.transaction().execute(async (trx) => {
      if (!(await switchOffIfStill(trx, e.endpointId, e.url, nowMs))) return false;
      await markEndpointDisabled(trx, e.endpointId, nowMs);
      await addNotices(trx, [endpointDisabledNotice(e, nowMs)]);
      return true;
    });
    if (switched) done.push(e);
  }
  return done;
}
