import { type Kysely, sql } from "kysely";
import { inTransaction } from "../executor.ts";

/**
 * A delivery's body moves out of its outbox row into `delivery_bodies`, written once and never
 * updated. Every claim (its lease) and every settlement updates the outbox row, which SQLite
 * rewrites whole, and the body was most of it: a block event lists its transactions' hashes (about
 * 7 KB for 100), which a delivery then copied twice more after queueing it. The bodies are copied
 * over and the column dropped in one transaction, also on SQLite (where Kysely runs a migration
 * outside one): a crash midway leaves the outbox as it was.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await inTransaction(db, async (trx) => {
    await trx.schema
      .createTable("delivery_bodies")
      .addColumn("delivery_id", "text", (c) => c.primaryKey())
      .addColumn("body", "text", (c) => c.notNull())
      .execute();
    await sql`insert into delivery_bodies (delivery_id, body) select id, body from deliveries`.execute(trx);
    await trx.schema.alterTable("deliveries").dropColumn("body").execute();
  });
}

export async function down(db: Kysely<any>): Promise<void> {
  await inTransaction(db, async (trx) => {
    await trx.schema.alterTable("deliveries").addColumn("body", "text", (c) => c.notNull().defaultTo("")).execute();
    await sql`update deliveries set body = coalesce((select b.body from delivery_bodies as b where b.delivery_id = deliveries.id), '')`.execute(trx);
    await trx.schema.dropTable("delivery_bodies").execute();
  });
}

