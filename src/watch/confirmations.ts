import { sql, type Transaction } from "kysely";
import type { DB } from "../db/schema.ts";

// min_confirmations of the address-watch webhook (docs/reference.md §8): with N > 0, a wallet or block event
// goes out only once its block has N confirmations on the canonical chain (tip − height + 1 >= N).
// Until then its delivery row is `held` with the height the tip must reach; each ingest releases
// the rows the new tips reached with one range read on the held-rows index, never a scan of the
// pending outbox. A held row whose block is orphaned is deleted (ingest/retraction.ts).

/** The height the tip must reach before an event at `blockHeight` may go out, or null when it may go now. */
export function holdUntilHeight(minConfirmations: number, blockHeight: number, tip: number): number | null {
  if (minConfirmations <= 0) return null;
  const due = blockHeight + minConfirmations - 1;
  return tip >= due ? null : due;
}

/** Makes the held deliveries the tips reached `pending`, due now. Returns how many. */
export async function releaseHeldDeliveries(trx: Transaction<DB>, tips: ReadonlyMap<string, number>, nowMs: number): Promise<number> {
  let released = 0;
  for (const [network, tip] of tips) {
    const result = await trx
      .updateTable("deliveries")
      .set({ status: "pending", next_attempt_at: nowMs, updated_at: nowMs })
      .where("network", "=", network)
      // Spelt as a literal so SQLite uses the partial index deliveries_held.
      .where(sql<boolean>`status = 'held'`)
      .where("hold_until_height", "<=", tip)
      .executeTakeFirst();
    released += Number(result.numUpdatedRows);
  }
  return released;
}
