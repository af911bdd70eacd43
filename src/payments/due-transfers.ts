import type { Executor } from "../db/database.ts";

/**
 * The highest block height at or below `maxHeight` holding a transfer to an order (or a late
 * payment) not yet confirmed on `network`, or null: what the upstream quorum is asked about
 * (ingest/quorum-heights.ts). The partial index payment_transfers_unconfirmed keeps it short.
 */
export async function highestDueTransfer(db: Executor, network: string, maxHeight: number): Promise<number | null> {
  const row = await db
    .selectFrom("payment_transfers as t")
    .innerJoin("payments as p", "p.id", "t.payment_id")
    .select((eb) => eb.fn.max("t.block_height").as("h"))
    .where("t.confirmed", "=", 0)
    .where("t.block_height", "<=", maxHeight)
    .where("p.network", "=", network)
    .executeTakeFirst();
  return row?.h === null || row?.h === undefined ? null : Number(row.h);
}
