import { type Kysely, sql } from "kysely";
import { isPostgres } from "../dialect/detect.ts";
import { inTransaction } from "../executor.ts";

/**
 * Cheaper updates of an outbox row, which every delivery updates twice (its lease, then its
 * settlement):
 *
 * - The payment index holds only the rows of a payment order: most rows have no payment, and each
 *   new version of one added an entry for nothing. Every query that reads it asks for a payment by
 *   `payment_id = …`, which implies the index's condition on SQLite and PostgreSQL alike.
 * - On PostgreSQL, outbox pages are filled to half: the lease changes no indexed column, so with
 *   room on the row's page the new version stays there and no index gets an entry (a heap-only
 *   update). Full pages sent every lease to another page and added an entry to each of the
 *   table's indexes. It applies to pages written from now on; SQLite rewrites a row in place.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await inTransaction(db, async (trx) => {
    await trx.schema.dropIndex("deliveries_payment").execute();
    await trx.schema
      .createIndex("deliveries_payment")
      .on("deliveries")
      .columns(["payment_id", "sequence"])
      .where(sql.ref("payment_id"), "is not", sql.lit(null))
      .execute();
    if (isPostgres(trx)) await sql`alter table deliveries set (fillfactor = 50)`.execute(trx);
  });
}

export async function down(db: Kysely<any>): Promise<void> {
  await inTransaction(db, async (trx) => {
    if (isPostgres(trx)) await sql`alter table deliveries reset (fillfactor)`.execute(trx);
    await trx.schema.dropIndex("deliveries_payment").execute();
    await trx.schema.createIndex("deliveries_payment").on("deliveries").columns(["payment_id", "sequence"]).execute();
  });
}
