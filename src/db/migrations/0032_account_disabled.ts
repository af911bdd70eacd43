import type { Kysely } from "kysely";

/**
 * Accounts an operator can switch off (`chainwatch accounts disable`, docs/operations.md): when
 * `disabled_at` is set, the account's API keys are refused, its cabinet signs nothing in and its
 * deliveries wait, paused; its watches and events stay. Null for every account until then.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("accounts").addColumn("disabled_at", "bigint").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("accounts").dropColumn("disabled_at").execute();
}
