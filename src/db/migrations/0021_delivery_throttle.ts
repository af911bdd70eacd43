import type { Kysely } from "kysely";

/**
 * The delivery rate limit of each account's webhook (docs/webhooks.md): `webhook_max_rps`, the
 * most deliveries a second its endpoint is sent, 0 for none; null while the account has not set
 * one, so `delivery.max_rps` of the config applies. Written by src/watch/webhook-settings.ts with
 * the other webhook columns; the delivery claim reads it beside the webhook's route. On PostgreSQL
 * the limit's per-second budgets live in `rate_windows` (0015), beside the API's.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("accounts").addColumn("webhook_max_rps", "integer").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("accounts").dropColumn("webhook_max_rps").execute();
}
