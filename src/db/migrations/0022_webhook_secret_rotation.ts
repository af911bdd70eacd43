import type { Kysely } from "kysely";

/**
 * Webhook secret rotation (docs/webhooks.md): after a rotation the account's previous `whsec_`
 * secret keeps signing beside the new one until `webhook_previous_secret_expires_at`, so a
 * receiver can switch secrets without losing a delivery. The previous secret is sealed like the
 * current one (AES-256-GCM under the master key); both columns are null while no rotation is in
 * its grace period. Written by src/watch/webhook-secret.ts with the other webhook columns; the
 * delivery claim reads them beside the current secret.
 */
export async function up(db: Kysely<any>): Promise<void> {
  // One column per ALTER: SQLite adds one at a time.
  await db.schema.alterTable("accounts").addColumn("webhook_previous_secret_enc", "text").execute();
  await db.schema.alterTable("accounts").addColumn("webhook_previous_secret_expires_at", "bigint").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("accounts").dropColumn("webhook_previous_secret_expires_at").execute();
  await db.schema.alterTable("accounts").dropColumn("webhook_previous_secret_enc").execute();
}
