import type { Kysely } from "kysely";

/**
 * Fencing for follower leadership (docs/operations.md): one row per lead (`follower:<network>`)
 * whose `epoch` goes up by one every time a daemon takes the lead. The leader's writes check, in
 * their own transaction, that the epoch is still the one it took, so a daemon that lost the lead
 * while paused (a stopped VM, a long GC) has its late batch refused by the database.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("lead_epochs")
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn("epoch", "integer", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("lead_epochs").execute();
}
