import type { Transaction } from "kysely";
import type { Executor } from "./executor.ts";
import type { DB } from "./schema.ts";

// The fencing epochs of leads (table `lead_epochs`, written by db/ only): a number per lead that
// goes up by one on every take-over. The leader remembers the epoch it took; each of its writes
// checks, inside the write's own transaction, that the row still holds it. Written once, through
// Kysely, for both dialects (PostgreSQL runs the take on the advisory lock's own session).

/** The statement that takes the next epoch of `name` (1 for a lead never taken) and returns it. */
export function takeEpochStatement(db: Executor, name: string) {
  return db
    .insertInto("lead_epochs")
    .values({ name, epoch: 1 })
    .onConflict((oc) => oc.column("name").doUpdateSet((eb) => ({ epoch: eb("lead_epochs.epoch", "+", 1) })))
    .returning("epoch");
}

/**
 * Whether `epoch` is still the epoch of `name`, checked inside `trx`. An update that changes
 * nothing, rather than a read: it locks the row until the transaction ends, so on PostgreSQL a
 * take-over that comes while the check's transaction is open waits for it to commit; on SQLite the
 * write transaction runs alone anyway.
 */
export async function holdsEpoch(trx: Transaction<DB>, name: string, epoch: number): Promise<boolean> {
  const result = await trx
    .updateTable("lead_epochs")
    .set((eb) => ({ epoch: eb.ref("epoch") }))
    .where("name", "=", name)
    .where("epoch", "=", epoch)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
