import type { Executor } from "../db/database.ts";
import { countEndpointDeliveries, heldForCredits } from "../delivery/endpoint-deliveries.ts";
import type { Endpoint } from "./endpoints.ts";
import { readEndpointRow } from "./health-store.ts";

// An endpoint's health (GET …/health, the cabinet's banners and endpoint list): how it is doing,
// from its stored record (health-store.ts) and the outbox.

export type EndpointState = "healthy" | "held" | "failing" | "disabled";

/** The health as the API answers it; times are Unix seconds. */
export type EndpointHealthView = {
  state: EndpointState;
  failing_since: number | null;
  last_success_at: number | null;
  last_error: { status_code: number | null; error: string } | null;
  pending: number;
  failed: number;
  held_no_credits: number;
};

/** The view, plus what the cabinet also shows: when a run of failures switched the endpoint off (ms). */
export type EndpointHealth = { view: EndpointHealthView; disabledAt: number | null };

const seconds = (ms: number | null) => (ms === null ? null : Math.floor(ms / 1000));

/**
 * The endpoint's health: `disabled` while it is off (switched off by a run of failures or by the
 * account holder), else `failing` while its last attempt failed, else `held` while deliveries wait
 * because the account's credits cannot pay, else `healthy`. `pending` and `failed` count its
 * address-watch deliveries in those states; `held_no_credits` every delivery of the account paused
 * for credits (the balance is the account's, whichever endpoint a webhook goes to). A hold records
 * no attempt, so it never starts or lengthens a run of failures.
 */
export async function readEndpointHealth(db: Executor, endpoint: Pick<Endpoint, "id" | "accountId" | "enabled">): Promise<EndpointHealth> {
  const row = await readEndpointRow(db, endpoint.id);
  const of = { accountId: endpoint.accountId, endpointId: endpoint.id };
  const failingSince = row?.failing_since ?? null;
  const held = await heldForCredits(db, endpoint.accountId);
  const state: EndpointState = !endpoint.enabled ? "disabled" : failingSince !== null ? "failing" : held > 0 ? "held" : "healthy";
  const lastError = row && failingSince !== null && row.last_error !== null ? { status_code: row.last_status_code, error: row.last_error } : null;
  return {
    view: {
      state,
      failing_since: seconds(failingSince),
      last_success_at: seconds(row?.last_success_at ?? null),
      last_error: lastError,
      pending: await countEndpointDeliveries(db, of, "pending"),
      failed: await countEndpointDeliveries(db, of, "failed"),
      held_no_credits: held,
    },
    disabledAt: row?.disabled_at ?? null,
  };
}
