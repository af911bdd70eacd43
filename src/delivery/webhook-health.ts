import { sql } from "kysely";
import type { Executor } from "../db/database.ts";
import { readEndpointRow } from "./endpoint-state.ts";

// GET /v1/address-watch/webhook/health and the cabinet's banners: how the account's address-watch
// webhook endpoint is doing, from its stored record (endpoint-state.ts) and its outbox.

export type EndpointState = "healthy" | "held" | "failing" | "disabled";

/** The health as the API answers it; times are Unix seconds. */
export type WebhookHealthView = {
  state: EndpointState;
  failing_since: number | null;
  last_success_at: number | null;
  last_error: { status_code: number | null; error: string } | null;
  pending: number;
  failed: number;
  held_no_credits: number;
};

/** The view, plus what the cabinet also shows: when a run of failures switched the webhook off (ms). */
export type WebhookHealth = { view: WebhookHealthView; disabledAt: number | null };

const seconds = (ms: number | null) => (ms === null ? null : Math.floor(ms / 1000));

/** How many of the account's deliveries wait `paused` because its credits cannot pay for them. */
export async function heldForCredits(db: Executor, accountId: string): Promise<number> {
  const r = await db
    .selectFrom("deliveries")
    .select((eb) => eb.fn.countAll().as("n"))
    .where("account_id", "=", accountId)
    .where(sql<boolean>`status = 'paused'`)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/**
 * The account's endpoint health: `disabled` while its webhook is off (switched off by a run of
 * failures or by the account holder), else `failing` while its last attempt failed, else `held`
 * while deliveries wait because its credits cannot pay, else `healthy`. `pending` and `failed`
 * count its address-watch deliveries in those states; `held_no_credits` every delivery of the
 * account paused for credits (the balance is the account's, whichever URL a webhook goes to).
 * A hold records no attempt, so it never starts or lengthens a run of failures.
 */
export async function readWebhookHealth(deps: { db: Executor }, accountId: string): Promise<WebhookHealth> {
  const { db } = deps;
  const account = await db.selectFrom("accounts").select(["webhook_enabled"]).where("id", "=", accountId).executeTakeFirstOrThrow();
  const row = await readEndpointRow(db, accountId);
  // Spelt as literals so SQLite can use the partial index of failed rows.
  const count = async (status: "pending" | "failed") => {
    const r = await db
      .selectFrom("deliveries")
      .select((eb) => eb.fn.countAll().as("n"))
      .where("account_id", "=", accountId)
      .where(status === "pending" ? sql<boolean>`status = 'pending'` : sql<boolean>`status = 'failed'`)
      .where("kind", "=", "event")
      .executeTakeFirstOrThrow();
    return Number(r.n);
  };
  const failingSince = row?.failing_since ?? null;
  const held = await heldForCredits(db, accountId);
  const state: EndpointState = account.webhook_enabled !== 1 ? "disabled" : failingSince !== null ? "failing" : held > 0 ? "held" : "healthy";
  const lastError = row && failingSince !== null && row.last_error !== null ? { status_code: row.last_status_code, error: row.last_error } : null;
  return {
    view: {
      state,
      failing_since: seconds(failingSince),
      last_success_at: seconds(row?.last_success_at ?? null),
      last_error: lastError,
      pending: await count("pending"),
      failed: await count("failed"),
      held_no_credits: held,
    },
    disabledAt: row?.disabled_at ?? null,
  };
}
