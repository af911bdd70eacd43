import type { Db, Executor } from "../db/database.ts";
import { type FailingEndpoint, markEndpointDisabled } from "./endpoint-state.ts";
import { addNotices, endpointDisabledNotice } from "./notices.ts";

// Switching off a webhook whose every attempt failed for `delivery.disable_after_hours`. The
// settlement transaction only finds such endpoints (endpoint-state.ts); each is switched off here,
// after that transaction committed, in a short transaction of its own: the account's webhook
// columns (locked first, as every settlement locks accounts before endpoint_health), the run
// marked disabled, the notice. Rare by nature, so none of it is on the delivery loop's hot path.

/**
 * Switches an account's webhook off if it is still enabled and still points at `url`, in the
 * caller's transaction; true when this call did it. The webhook settings own those columns: the
 * composition root passes their function (watch/webhook-settings.ts) in.
 */
export type DisableWebhook = (db: Executor, accountId: string, url: string, nowMs: number) => Promise<boolean>;

/**
 * Disables each endpoint that is still enabled on the URL that failed, records it and tells the
 * account holder; returns the ones this call disabled (another daemon, or the account holder, may
 * have been first: those are left alone, so each is logged and counted once).
 */
export async function disableFailingEndpoints(
  deps: { db: Db; disableWebhook: DisableWebhook },
  endpoints: readonly FailingEndpoint[],
  nowMs: number,
): Promise<FailingEndpoint[]> {
  const disabled: FailingEndpoint[] = [];
  for (const e of endpoints) {
    const done = await deps.db.transaction().execute(async (trx) => {
      if (!(await deps.disableWebhook(trx, e.accountId, e.url, nowMs))) return false;
      await markEndpointDisabled(trx, e.accountId, nowMs);
      await addNotices(trx, [endpointDisabledNotice(e, nowMs)]);
      return true;
    });
    if (done) disabled.push(e);
  }
  return disabled;
}
